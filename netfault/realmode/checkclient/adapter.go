package checkclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/properties/clientcheck"
)

// adapterProc is one process of a Client adapter: its own process group
// (so a kill takes the Agent process it spawned along), its stdout read
// line by line into lines, closed at EOF.
type adapterProc struct {
	child  *proc.Child
	in     io.WriteCloser
	lines  chan adapterLine
	stderr proc.StderrTail
	waited bool
	killed bool
}

type adapterLine struct {
	text    string
	n       int  // line number on this process's stdout, from 1
	tooLong bool // over proc.MaxLine without a newline: text is empty, the rest unread
}

func startAdapter(argv, env []string) (*adapterProc, error) {
	a := &adapterProc{lines: make(chan adapterLine, 64)}
	c, in, err := proc.StartChild(argv, env, &a.stderr, true)
	if err != nil {
		return nil, err
	}
	a.child, a.in = c, in
	out := c.Stdout()
	go func() {
		defer close(a.lines)
		br := bufio.NewReaderSize(out, 64<<10)
		for n := 1; ; n++ {
			line, err := proc.ReadLine(br)
			if errors.Is(err, proc.ErrLongLine) {
				// Nothing more is read: the adapter blocks on its pipe
				// until the driver, told of it, kills it.
				a.lines <- adapterLine{n: n, tooLong: true}
				return
			}
			if len(bytes.TrimSpace(line)) > 0 {
				a.lines <- adapterLine{text: string(bytes.TrimSpace(line)), n: n}
			}
			if err != nil {
				return
			}
		}
	}()
	return a, nil
}

func (a *adapterProc) send(line string) error {
	_, err := io.WriteString(a.in, line+"\n")
	return err
}

func (a *adapterProc) closeInput() { a.in.Close() }

// kill ends the adapter's process group, and with it what it started.
// Its lines up to its death are still to be read from lines.
func (a *adapterProc) kill() {
	a.killed = true
	a.child.Kill()
}

// abandon kills the adapter and drops what it printed: the seed is over.
func (a *adapterProc) abandon() {
	a.kill()
	go func() {
		for range a.lines {
		}
	}()
	a.wait()
}

func (a *adapterProc) wait() {
	if !a.waited {
		a.waited = true
		_ = a.child.Wait()
	}
}

// exitCode is the adapter's, once waited for.
func (a *adapterProc) exitCode() int { return a.child.ExitCode() }

func (a *adapterProc) status() string {
	if s := a.child.Status(); s != "" {
		return s
	}
	return "running"
}

// parseTold reads one outcome line of the contract.
func parseTold(line string) (clientcheck.Told, error) {
	var t struct {
		ID         *string `json:"id"`
		Outcome    *string `json:"outcome"`
		MessageID  *string `json:"messageId"`
		StopReason *string `json:"stopReason"`
		Error      any     `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &t); err != nil {
		return clientcheck.Told{}, fmt.Errorf("not a JSON object (%v), expected an outcome such as {\"id\":\"s1\",\"outcome\":\"inserted\",\"messageId\":\"…\"}", err)
	}
	switch {
	case t.ID == nil:
		return clientcheck.Told{}, errors.New(`no "id": expected the id of the submission it answers`)
	case t.Outcome == nil:
		return clientcheck.Told{}, errors.New(`no "outcome": expected inserted, failed or unknown`)
	}
	told := clientcheck.Told{ID: *t.ID, Outcome: *t.Outcome}
	if t.Error != nil {
		told.Error = fmt.Sprint(t.Error)
	}
	switch told.Outcome {
	case clientcheck.Inserted:
		switch {
		case t.MessageID != nil && *t.MessageID != "":
			told.MessageID = *t.MessageID
		case t.StopReason != nil && *t.StopReason != "":
			// ACP v1: the turn's answer names no message, only why it
			// stopped; the judge goes by the text.
		default:
			return told, errors.New(`"outcome": "inserted" without a "messageId": expected the messageId the Agent answered (ACP v2), or in ACP v1 the turn's "stopReason"`)
		}
	case clientcheck.Failed, clientcheck.Unknown:
	default:
		return told, fmt.Errorf(`"outcome" %q: expected inserted, failed or unknown`, told.Outcome)
	}
	return told, nil
}
