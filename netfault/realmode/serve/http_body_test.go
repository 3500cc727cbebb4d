package serve_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault/realmode/internal/realtest"
	"github.com/acpsim/acpsim/netfault/realmode/serve"
)

// rawPost writes a POST of /acp with headers and body exactly as given on a
// TCP connection of its own, ends its side, and reads the answer.
func rawPost(t *testing.T, u, headers, body string) (*http.Response, string) {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", pu.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req := "POST " + serve.Path + " HTTP/1.1\r\nHost: " + pu.Host + "\r\nContent-Type: application/json\r\n" + headers + "\r\n" + body
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite() // the rest of the body never comes
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// A POST whose body breaks off is answered 400 with why, never as if an
// empty or partial frame had been taken.
func TestPostWithABrokenBodyIs400(t *testing.T) {
	realtest.NoLeaks(t)
	u := realtest.ServeAgent(t, store.NewDisk(), realtest.Knobs())
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2}}`
	size := strconv.FormatInt(int64(len(init)), 16)
	for _, c := range []struct{ name, headers, body string }{
		{"shorter than its Content-Length", "Content-Length: 500\r\n", init},
		{"chunk size not hex", "Transfer-Encoding: chunked\r\n", "zz\r\n" + init + "\r\n0\r\n\r\n"},
		{"chunk cut off", "Transfer-Encoding: chunked\r\n", size + "\r\n" + init[:20]},
		{"no last chunk", "Transfer-Encoding: chunked\r\n", size + "\r\n" + init + "\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := rawPost(t, u, c.headers, c.body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "body") {
				t.Fatalf("HTTP %d %q, want 400 saying the body is broken", resp.StatusCode, body)
			}
		})
	}
}
