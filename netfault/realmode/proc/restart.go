package proc

import (
	"errors"
	"os/exec"
	"time"
)

// restartPipeWait is how long a --restart command's output is still read
// after the command has exited.
const restartPipeWait = 2 * time.Second

// RunRestart runs a --restart command (check and conform against a remote
// Agent) and returns its output. A restart command that starts the Agent in
// the background and returns leaves the Agent holding the output pipe, which
// would keep CombinedOutput waiting as long as the Agent lives: once the
// command has exited, the rest of its output is given up after
// restartPipeWait and its exit status decides alone.
func RunRestart(cmd *exec.Cmd) ([]byte, error) {
	cmd.WaitDelay = restartPipeWait
	out, err := cmd.CombinedOutput()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil
	}
	return out, err
}
