package dial

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/acpsim/acpsim/netfault"
)

// wsConn is a WebSocket connection: one reader goroutine, writes from Send.
type wsConn struct {
	*life
	c         *websocket.Conn
	name      string
	timeout   time.Duration
	closeOnce sync.Once
}

// WS opens a WebSocket to the Agent endpoint u (ws://HOST:PORT/acp);
// ctx bounds the handshake. The upgrade creates the connection: Name is the
// Acp-Connection-Id of the 101 (the local address when the Agent sends
// none), and the Client still sends initialize first. Send writes one text
// frame; Frames yields the Agent's text frames in order (binary frames are
// ignored). A refused upgrade is a *StatusError. Close sends a close frame
// and closes the socket without waiting for the Agent's.
func WS(ctx context.Context, u string, opts Options) (Conn, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	t := opts.timeout()
	d := websocket.Dialer{HandshakeTimeout: t, Jar: jar, ReadBufferSize: 1 << 16, WriteBufferSize: 1 << 16}
	ws, resp, err := d.DialContext(ctx, u, nil)
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			return nil, &StatusError{Code: resp.StatusCode, Body: strings.TrimSpace(string(b))}
		}
		return nil, err
	}
	ws.SetReadLimit(maxBody)
	c := &wsConn{c: ws, timeout: t, name: resp.Header.Get(netfault.HeaderConnection)}
	if c.name == "" {
		c.name = "ws:" + ws.LocalAddr().String()
	}
	c.life = newLife(nil)
	c.spawn(c.read)
	return c, nil
}

func (c *wsConn) read() {
	for {
		typ, data, err := c.c.ReadMessage()
		if err != nil {
			c.end(fmt.Errorf("websocket: %w", err))
			_ = c.c.Close()
			return
		}
		if typ == websocket.TextMessage {
			c.push(data)
		}
	}
}

func (c *wsConn) Name() string { return c.name }

func (c *wsConn) Send(frame []byte) error {
	if err := c.Err(); err != nil {
		return fmt.Errorf("connection ended: %w", err)
	}
	_ = c.c.SetWriteDeadline(time.Now().Add(c.timeout))
	if err := c.c.WriteMessage(websocket.TextMessage, frame); err != nil {
		// A failed write leaves the WebSocket unusable: end it.
		c.end(fmt.Errorf("websocket: %w", err))
		_ = c.c.Close()
		return err
	}
	return nil
}

func (c *wsConn) Close() error {
	c.closeOnce.Do(func() {
		c.end(ErrClosed)
		c.abort()
		// Best effort and brief: Close does not wait for the Agent.
		_ = c.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(250*time.Millisecond))
		_ = c.c.Close()
	})
	return nil
}
