// Typed events: the generated history's send events carry their frames'
// acp.Digest, as the simulator's do, so the checker is measured on the form
// it is handed in a swarm (BenchmarkCheckMillion) and, with the digests
// left out, on the bytes alone (acpsim judge's form).

package bench

import (
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
)

// typed remembers the digests of frames encoded but not yet sent.
type typed struct {
	digs    acp.Digests
	pending map[*byte]*acp.Digest
}

func (t *typed) keep(b []byte, d acp.Digest) []byte {
	if p := t.digs.Keep(b, d); p != nil {
		if t.pending == nil {
			t.pending = map[*byte]*acp.Digest{}
		}
		t.pending[unsafe.SliceData(b)] = p
	}
	return b
}

// take is the digest of the frame a send event is about to carry.
func (t *typed) take(frame string) *acp.Digest {
	p := unsafe.StringData(frame)
	d := t.pending[p]
	if !d.Describes(frame) {
		return nil
	}
	delete(t.pending, p)
	return d
}

func (t *typed) request(id acp.ID, method string, params any) []byte {
	return t.keep(acp.RequestDigest(id, method, params))
}

func (t *typed) result(id acp.ID, result any) []byte { return t.keep(acp.ResultDigest(id, result)) }

func (t *typed) update(session string, u acp.Update) []byte {
	return t.keep(acp.UpdateFrameDigest(session, u))
}

func (t *typed) fail(id acp.ID, e *acp.Error) []byte { return t.keep(acp.ErrorDigest(id, e)) }

// text is b as a string sharing its bytes, which the encoders never write
// again: what a digest describes.
func text(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
