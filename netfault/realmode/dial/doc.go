// Package dial is the Client's end of a connection to a real Agent: Conn,
// the one interface acpsim check and conform drive whatever carries it, and
// the remote dialers, Streamable HTTP (HTTP) and WebSocket (WS), one chosen
// by the URL's scheme (Remote). The stdio Conn, an Agent started as a child
// process, is proc.Process.
package dial
