package sim

import (
	"cmp"
	"encoding/binary"
	"slices"
	"unsafe"
)

// The register's other strings (texts, ids of another length than a
// UUID's) live in an arena of their own: each is written behind four bytes
// holding its handle, so Handle reads the handle from just before the
// string's bytes and confirms that the register's string of that handle
// starts there, with no hash and no compare of the text. A text is minted
// once, where it is made (a user's prompt); the Client that sends it, the
// Agent that echoes it and the checker that judges it then pass the one
// string.

// textChunk is a block of the text arena: used bytes of handles and texts.
type textChunk struct {
	base  uintptr
	bytes []byte
	used  int
}

// textHeader is the handle's size in front of each text.
const textHeader = 4

// First and largest sizes of a text chunk: a seed mints a few dozen texts.
const (
	firstTextChunk = 1 << 10
	textChunkMax   = 64 << 10
)

// mintText writes s into the text arena as handle h's and returns the
// arena's string.
func (n *Names) mintText(s string, h int32) string {
	need := textHeader + len(s)
	if n.curText < 0 || n.texts[n.curText].used+need > len(n.texts[n.curText].bytes) {
		n.growText(need)
	}
	c := &n.texts[n.curText]
	binary.LittleEndian.PutUint32(c.bytes[c.used:], uint32(h))
	at := c.used + textHeader
	copy(c.bytes[at:], s)
	c.used += need
	return unsafe.String(&c.bytes[at], len(s))
}

// growText starts a text chunk with room for need bytes at least, and keeps
// the chunks sorted by address.
func (n *Names) growText(need int) {
	size := firstTextChunk
	if n.curText >= 0 {
		size = min(2*len(n.texts[n.curText].bytes), textChunkMax)
	}
	b := make([]byte, max(size, need))
	c := textChunk{base: uintptr(unsafe.Pointer(&b[0])), bytes: b}
	i, _ := slices.BinarySearchFunc(n.texts, c.base, func(c textChunk, base uintptr) int { return cmp.Compare(c.base, base) })
	n.texts = slices.Insert(n.texts, i, c)
	n.curText, n.lastText = i, i
}

// inTexts is the handle of the text whose bytes start at s's in the text
// arena, 0 when s is no text of it.
func (n *Names) inTexts(s string) int32 {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	c := &n.texts[n.lastText]
	if p < c.base || p >= c.base+uintptr(c.used) {
		i, found := slices.BinarySearchFunc(n.texts, p, func(c textChunk, p uintptr) int { return holds(c.base, c.bytes, p) })
		if !found {
			return 0
		}
		n.lastText = i
		c = &n.texts[i]
	}
	off := int(p - c.base)
	if off < textHeader || off >= c.used {
		return 0
	}
	h := int32(binary.LittleEndian.Uint32(c.bytes[off-textHeader:]))
	// Bytes in front of any other place in a text read as a handle too:
	// only the register's own string of it starts here.
	if h <= 0 || int(h) >= len(n.names) {
		return 0
	}
	if name := n.names[h]; len(name) != len(s) || unsafe.StringData(name) != unsafe.StringData(s) {
		return 0
	}
	return h
}
