package sim

import (
	"cmp"
	"slices"
	"unsafe"
)

// Names is a run's register of the ids it mints (session and message ids,
// idempotency keys) and of its users' texts, each given a handle, a small
// integer from 1, where it is made. It is what lets the checker index its
// records by handle without hashing an id at every mention (docs/design.md,
// "The checker on handles"): a string of UUIDLen bytes is minted into an
// arena of such slots, any other (a text) into an arena of its own
// (names_text.go), and Handle finds the handle of an arena's own string
// from where its bytes lie, with no hash and no compare. A copy of an id
// (one decoded from a frame) has bytes of its own: Handle finds it by its
// value, as a map would, and Canonical gives back the arena's string, for
// an actor that keeps an id it read to mention it as the minted one.
//
// One value is one handle: minting a value again (a key drawn again from
// its submission's stream) gives the first string and handle back. The
// empty string is no id: it has no handle.
//
// A run owns its register: it is not safe for concurrent use (Handle
// remembers the chunk it found last). An id kept after the run (a session
// named in a kept report) keeps its whole chunk alive, up to 147 KB; a
// text, its text chunk, 64 KB or the text's size.
type Names struct {
	byValue map[string]int32
	names   []string // by handle; names[0] is ""
	chunks  []chunk  // the arena, sorted by base address
	cur     *chunk   // the chunk ids are minted into
	last    int      // the chunk Handle found last, tried first
	// texts is the arena of the other strings (names_text.go), sorted by
	// base address; curText the chunk they are minted into (-1: none
	// yet), lastText the one Handle found last.
	texts             []textChunk
	curText, lastText int
}

// UUIDLen is the length of a UUID's text, the ids Names keeps in its arena.
const UUIDLen = 36

// firstChunkIDs and chunkIDs are how many ids the first chunk of the arena
// holds and how many a chunk holds at most: each chunk doubles the last, so
// a short run (a seed of ten prompts mints a few dozen ids) clears little.
const (
	firstChunkIDs = 64
	chunkIDs      = 4096
)

// chunk is a block of the arena: n ids of UUIDLen bytes, and the handle
// of each (ids kept by value take handles between them).
type chunk struct {
	base    uintptr
	bytes   []byte
	handles []int32
	n       int32
}

// NewNames returns an empty register.
func NewNames() *Names {
	// Sized for a short run's ids (a ten-prompt seed mints a few dozen):
	// growing from nothing took more than the minting.
	names := make([]string, 1, firstChunkIDs+1)
	return &Names{byValue: make(map[string]int32, firstChunkIDs), names: names, curText: -1}
}

// Len is the number of names registered.
func (n *Names) Len() int { return len(n.names) - 1 }

// Name is the string of handle h ("" for 0 or a handle not given).
func (n *Names) Name(h int32) string {
	if h <= 0 || int(h) >= len(n.names) {
		return ""
	}
	return n.names[h]
}

// MintUUID registers the UUID u and returns its text (as uuid.UUID's
// String writes it), in the arena, with its handle.
func (n *Names) MintUUID(u [16]byte) (string, int32) {
	slot := n.freeSlot()
	encodeUUID(slot, u)
	return n.takeSlot(slot)
}

// MintString is Mint's string alone (for client.Env.Mint).
func (n *Names) MintString(s string) string {
	id, _ := n.Mint(s)
	return id
}

// Mint registers s, an id or a text made as a string, and returns the
// register's string for it with its handle; s itself is not kept. A string
// of another length than a UUID's is kept in the text arena
// (names_text.go), where Handle finds it from its address as well.
func (n *Names) Mint(s string) (string, int32) {
	switch {
	case s == "":
		return "", 0
	case len(s) != UUIDLen:
		if h, ok := n.byValue[s]; ok {
			return n.names[h], h
		}
		s = n.mintText(s, int32(len(n.names)))
		return s, n.add(s)
	}
	slot := n.freeSlot()
	copy(slot, s)
	return n.takeSlot(slot)
}

// freeSlot is the arena's next free slot, a new chunk's first when the
// current one is full.
func (n *Names) freeSlot() []byte {
	if n.cur == nil || int(n.cur.n)*UUIDLen == len(n.cur.bytes) {
		n.grow()
	}
	at := int(n.cur.n) * UUIDLen
	return n.cur.bytes[at : at+UUIDLen]
}

// takeSlot registers the id written into slot (freeSlot's): a value
// registered before gives its first string and handle back and leaves the
// slot free, so the lookup needs no copy of its own.
func (n *Names) takeSlot(slot []byte) (string, int32) {
	s := unsafe.String(&slot[0], UUIDLen)
	if h, ok := n.byValue[s]; ok {
		return n.names[h], h
	}
	h := n.add(s)
	n.cur.handles = append(n.cur.handles, h)
	n.cur.n++
	return s, h
}

func (n *Names) add(s string) int32 {
	h := int32(len(n.names))
	n.names = append(n.names, s)
	n.byValue[s] = h
	return h
}

// grow starts a new chunk and keeps the chunks sorted by address.
func (n *Names) grow() {
	size := firstChunkIDs
	if n.cur != nil {
		size = min(2*len(n.cur.bytes)/UUIDLen, chunkIDs)
	}
	b := make([]byte, size*UUIDLen)
	c := chunk{base: uintptr(unsafe.Pointer(&b[0])), bytes: b, handles: make([]int32, 0, size)}
	i, _ := slices.BinarySearchFunc(n.chunks, c.base, func(c chunk, base uintptr) int { return cmp.Compare(c.base, base) })
	n.chunks = slices.Insert(n.chunks, i, c)
	// Insert may have moved the chunk headers (never their bytes): cur
	// points at the new one's, and nothing inserts again until it is full.
	n.cur = &n.chunks[i]
	n.last = i
}

// Handle is the handle of s, 0 when s was never registered. The arena's
// own strings are found from their address; any other string by its value.
func (n *Names) Handle(s string) int32 {
	switch {
	case len(s) == UUIDLen && len(n.chunks) > 0:
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		if h := n.inArena(p); h > 0 {
			return h
		}
	case len(s) > 0 && len(n.texts) > 0:
		if h := n.inTexts(s); h > 0 {
			return h
		}
	}
	return n.byValue[s]
}

// inArena is the handle of the id whose bytes start at p in the arena, 0
// when p is not the start of one.
func (n *Names) inArena(p uintptr) int32 {
	c := &n.chunks[n.last]
	if p < c.base || p >= c.base+uintptr(c.n)*UUIDLen {
		i, found := slices.BinarySearchFunc(n.chunks, p, func(c chunk, p uintptr) int { return holds(c.base, c.bytes, p) })
		if !found {
			return 0
		}
		n.last = i
		c = &n.chunks[i]
	}
	off := p - c.base
	if off%UUIDLen != 0 || off >= uintptr(c.n)*UUIDLen {
		return 0
	}
	return c.handles[off/UUIDLen]
}

// holds orders a block of bytes at base against address p, for a binary
// search of the blocks sorted by address: 0 when the block holds p.
func holds(base uintptr, bytes []byte, p uintptr) int {
	switch {
	case base+uintptr(len(bytes)) <= p:
		return -1
	case base > p:
		return 1
	}
	return 0
}

// Canonical is the register's string for s (the arena's, for a UUID), or s
// itself when it was never registered.
func (n *Names) Canonical(s string) string {
	if h := n.Handle(s); h > 0 {
		return n.names[h]
	}
	return s
}

const hexDigits = "0123456789abcdef"

// encodeUUID writes u as xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx into b, as
// uuid.UUID's String does.
func encodeUUID(b []byte, u [16]byte) {
	j := 0
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexDigits[x>>4], hexDigits[x&0xf]
		j += 2
	}
}
