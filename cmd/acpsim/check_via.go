package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/traces/shell"
)

// agentEnv is the environment variable through which acpsim check --via
// tells the proxy the Agent command to forward to, as shell words
// (traces/shell); acpsim proxy reads it when no command follows its --.
// Not ACPSIM_AGENT: that is the twin of --agent (the model Agent's name),
// which an acpsim agent behind the proxy would read.
const agentEnv = "ACPSIM_AGENT_COMMAND"

// agentWord in a --via command stands for the Agent's command, word for
// word.
const agentWord = "{agent}"

// throughProxy is the command acpsim check starts in place of the Agent's
// when --via names a proxy: the proxy's words, each word {agent} replaced
// by the Agent's words, and the environment entry ACPSIM_AGENT_COMMAND=the Agent's
// command for a proxy that reads it instead. The proxy process is started,
// killed (with its process group: the Agent it spawned dies with it) and
// restarted exactly as the Agent would be.
func throughProxy(via string, agentArgv []string) (argv []string, env string, err error) {
	words, err := shell.Split(via)
	if err != nil {
		return nil, "", fmt.Errorf("--via %q: %v", via, err)
	}
	if len(words) == 0 {
		return nil, "", errors.New("--via: expected the proxy's command, e.g. --via 'acpsim proxy' or --via 'my-conductor --agent {agent}'")
	}
	for _, w := range words {
		if w == agentWord {
			argv = append(argv, agentArgv...)
			continue
		}
		if strings.Contains(w, agentWord) {
			return nil, "", fmt.Errorf("--via %q: %s must be a word of its own (it stands for the Agent's words); for one string use $%s", via, agentWord, agentEnv)
		}
		argv = append(argv, w)
	}
	return argv, agentEnv + "=" + shell.Join(agentArgv), nil
}
