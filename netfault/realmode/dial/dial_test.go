package dial_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/dial"
	"github.com/acpsim/acpsim/netfault/realmode/internal/realtest"
)

// The reference Agent behind a real socket, through the Conns a check
// driver uses, on both remote transports: initialize, session/new, a keyed
// prompt and its updates, the connection lost before the Client heard the
// outcome, then on a new connection session/resume with replay (the message
// is there once) and the keyed retry (answered with the same messageId).
func TestRemoteAgentSpeaksACP(t *testing.T) {
	for _, transport := range []string{"http", "ws"} {
		t.Run(transport, func(t *testing.T) {
			realtest.NoLeaks(t)
			u := realtest.ServeAgent(t, store.NewDisk(), realtest.Knobs())
			if transport == "ws" {
				u = realtest.WSEndpoint(u)
			}
			a := realtest.DialClient(t, u)
			a.Initialize()
			if a.Conn.Name() == "" {
				t.Fatal("no connection name after initialize")
			}
			sid := a.NewSession()
			id := a.Prompt(sid, "hello", "K1")
			echo := a.Until(func(m acp.Message) bool {
				u, ok := realtest.Update(m)
				return ok && u.Update.Kind == acp.UpdateUserMessage
			})
			if u, _ := realtest.Update(echo); u.Update.MessageID != id || u.SessionID != sid {
				t.Fatalf("user_message %+v, want messageId %s in %s", u, id, sid)
			}
			a.Until(realtest.Idle)
			// The next prompt: the Agent inserts it and works on it, and
			// the connection is lost with the Client never having looked
			// at the answer (reading on until idle only makes sure the
			// Agent got that far).
			a.Send(acp.MethodSessionPrompt, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.Text("again")}, IdempotencyKey: acp.KeyJSON("K2")})
			a.Until(realtest.Idle)
			_ = a.Conn.Close()
			for range a.Conn.Frames() { // closes once the Conn's goroutines are gone
			}
			if !errors.Is(a.Conn.Err(), dial.ErrClosed) {
				t.Fatalf("Err after Close = %v", a.Conn.Err())
			}

			b := realtest.DialClient(t, u)
			b.Initialize()
			if b.Conn.Name() == a.Conn.Name() {
				t.Fatalf("two connections named %s", b.Conn.Name())
			}
			replayed := b.ResumeReplay(sid)
			if len(replayed) != 2 || replayed[0] != id {
				t.Fatalf("replayed user messages %v, want [%s, the lost prompt's]", replayed, id)
			}
			if got := b.Prompt(sid, "again", "K2"); got != replayed[1] {
				t.Fatalf("retry of the lost prompt answered %s, the session holds %s", got, replayed[1])
			}
			if got := b.Prompt(sid, "hello", "K1"); got != id {
				t.Fatalf("retry answered %s, first %s", got, id)
			}
			if replayed := b.ResumeReplay(sid); len(replayed) != 2 {
				t.Fatalf("after the retries the session holds %v", replayed)
			}
		})
	}
}

// A 404 on a live HTTP connection ends the Conn with that *StatusError: the
// Agent no longer knows it (here it was deleted behind the Conn's back).
func TestHTTPConnEndsOn404(t *testing.T) {
	realtest.NoLeaks(t)
	u := realtest.ServeAgent(t, store.NewDisk(), realtest.Knobs())
	a := realtest.DialClient(t, u)
	a.Initialize()
	req, _ := http.NewRequest(http.MethodDelete, u, nil)
	req.Header.Set(netfault.HeaderConnection, a.Conn.Name())
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("DELETE: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	http.DefaultClient.CloseIdleConnections()
	err := a.Conn.Send(acp.Request(acp.NumID(9), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"}))
	var se *dial.StatusError
	if !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("Send on a deleted connection: %v, want HTTP 404", err)
	}
	select {
	case <-waitClosed(a.Conn):
	case <-time.After(5 * time.Second):
		t.Fatal("Frames not closed after a 404")
	}
	if !errors.As(a.Conn.Err(), &se) || se.Code != http.StatusNotFound {
		t.Fatalf("Err = %v, want the 404", a.Conn.Err())
	}
	if err := a.Conn.Send([]byte(`{}`)); err == nil {
		t.Fatal("Send on an ended Conn succeeded")
	}
}

// waitClosed drains c's frames and is closed when Frames is.
func waitClosed(c dial.Conn) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for range c.Frames() {
		}
		close(done)
	}()
	return done
}

// An Agent that stops takes its connections along: the Conns end by
// themselves (the HTTP one when its connection stream cannot be reopened,
// the WebSocket with the close frame), and their goroutines with them.
func TestConnsEndWhenTheAgentStops(t *testing.T) {
	realtest.NoLeaks(t)
	for _, transport := range []string{"http", "ws"} {
		t.Run(transport, func(t *testing.T) {
			u, stop := realtest.StartAgent(t, store.NewDisk(), realtest.Knobs())
			t.Cleanup(stop)
			if transport == "ws" {
				u = realtest.WSEndpoint(u)
			}
			a := realtest.DialClient(t, u)
			a.Initialize()
			a.NewSession()
			stop()
			select {
			case <-waitClosed(a.Conn):
			case <-time.After(5 * time.Second):
				t.Fatal("the Conn did not end after the Agent stopped")
			}
			if a.Conn.Err() == nil || errors.Is(a.Conn.Err(), dial.ErrClosed) {
				t.Fatalf("Err = %v, want why the Agent went away", a.Conn.Err())
			}
		})
	}
}

// Remote refuses what is not a remote endpoint, and a refused upgrade is a
// *StatusError.
func TestDialErrors(t *testing.T) {
	realtest.NoLeaks(t)
	if _, err := dial.Remote(context.Background(), "ftp://x/acp", dial.Options{}); err == nil || !strings.Contains(err.Error(), "scheme") {
		t.Fatalf("ftp: %v", err)
	}
	u := realtest.ServeAgent(t, store.NewDisk(), realtest.Knobs())
	_, err := dial.Remote(context.Background(), realtest.WSEndpoint(u)+"/nope", dial.Options{Timeout: time.Second})
	var se *dial.StatusError
	if !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("dial a path that is not /acp: %v", err)
	}
	// Before initialize there is no connection: the Agent answers 400.
	c, _ := dial.Remote(context.Background(), u, dial.Options{})
	defer c.Close()
	if err := c.Send(acp.Request(acp.NumID(1), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"})); !errors.As(err, &se) || se.Code != http.StatusBadRequest {
		t.Fatalf("session/new before initialize: %v", err)
	}
}
