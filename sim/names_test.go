package sim

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/uuid"
)

// Every minted id is found by its handle, from the arena's string and from
// a copy alike, over many chunks; a value minted again keeps its first
// handle; nothing else has one.
func TestNamesFindEveryMintedID(t *testing.T) {
	n := NewNames()
	ids := NewIDs(7)
	const count = 3*chunkIDs + 17
	minted := make([]string, 0, count)
	for i := range count {
		u := uuid.Must(uuid.NewRandomFromReader(ids))
		s, h := n.MintUUID(u)
		if s != u.String() {
			t.Fatalf("minted %q, want uuid's text %q", s, u.String())
		}
		if h != int32(i+1) {
			t.Fatalf("id %d got handle %d, want %d (dense from 1)", i, h, i+1)
		}
		minted = append(minted, s)
	}
	for i, s := range minted {
		h := int32(i + 1)
		if got := n.Handle(s); got != h {
			t.Fatalf("Handle of the arena's string %d = %d", h, got)
		}
		c := strings.Clone(s)
		if got := n.Handle(c); got != h {
			t.Fatalf("Handle of a copy of %d = %d", h, got)
		}
		if got := n.Canonical(c); unsafe.StringData(got) != unsafe.StringData(s) {
			t.Fatalf("Canonical of a copy of %d is not the arena's string", h)
		}
		if n.Name(h) != s {
			t.Fatalf("Name(%d) = %q, want %q", h, n.Name(h), s)
		}
	}
	if s, h := n.Mint(strings.Clone(minted[5])); h != 6 || unsafe.StringData(s) != unsafe.StringData(minted[5]) {
		t.Fatalf("minting id 6 again: handle %d, want 6 and the first string", h)
	}
	if n.Len() != count {
		t.Fatalf("Len %d after minting %d ids and one again", n.Len(), count)
	}
	// A string of the arena's bytes that does not start at an id is not
	// one (nor is its value), and an id never minted has no handle.
	inside := unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(minted[0])), 1)), UUIDLen)
	for _, s := range []string{inside, uuid.NewString(), "", "short"} {
		if s == minted[0] {
			continue
		}
		if h := n.Handle(s); h != 0 {
			t.Errorf("Handle(%q) = %d, want 0", s, h)
		}
	}
	if n.Name(0) != "" || n.Name(int32(count+1)) != "" || n.Name(-1) != "" {
		t.Error("Name of 0, of a handle not given or of a negative is not empty")
	}
}

// A view of a chunk's free tail, where no id has been minted yet, is no id:
// it has no handle (and no slot's handle is read for it).
func TestNamesFreeTailIsNoID(t *testing.T) {
	n := NewNames()
	s, _ := n.MintUUID([16]byte{7})
	tail := unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), UUIDLen)), UUIDLen)
	if h := n.Handle(tail); h != 0 {
		t.Fatalf("the free slot after the only id has handle %d", h)
	}
	if id, h := n.Mint(""); id != "" || h != 0 || n.Handle("") != 0 || n.Len() != 1 {
		t.Fatalf("the empty string minted as %q, handle %d", id, h)
	}
}

// Ids kept by value take handles between the arena's: each keeps its own.
func TestNamesInterleaved(t *testing.T) {
	n := NewNames()
	ids := NewIDs(5)
	want := map[string]int32{}
	var arena []string
	for i := range 300 {
		s, h := n.MintUUID(uuid.Must(uuid.NewRandomFromReader(ids)))
		want[s], arena = h, append(arena, s)
		if i%3 == 0 {
			o, h := n.Mint(fmt.Sprintf("key-%d", i))
			want[o] = h
		}
	}
	for s, h := range want {
		if got := n.Handle(s); got != h || n.Name(h) != s {
			t.Fatalf("%q: Handle %d, Name(%d) %q; minted as %d", s, got, h, n.Name(h), h)
		}
	}
	for _, s := range arena {
		if n.Handle(s) != want[s] {
			t.Fatalf("%q by address: %d, want %d", s, n.Handle(s), want[s])
		}
	}
}

// A UUID minted again takes no slot: the next one minted has the slot and
// is found from its address.
func TestNamesMintAgainKeepsTheSlot(t *testing.T) {
	n := NewNames()
	a, b := [16]byte{1}, [16]byte{2}
	sa, ha := n.MintUUID(a)
	if s, h := n.MintUUID(a); h != ha || unsafe.StringData(s) != unsafe.StringData(sa) {
		t.Fatalf("minted again: handle %d, want %d and the first string", h, ha)
	}
	sb, hb := n.MintUUID(b)
	if hb != 2 || n.Handle(sb) != 2 || n.Handle(sa) != 1 || n.Name(1) != sa || n.Len() != 2 {
		t.Fatalf("after a again and b: handles %d %d, Len %d", n.Handle(sa), n.Handle(sb), n.Len())
	}
	if uintptr(unsafe.Pointer(unsafe.StringData(sb)))-uintptr(unsafe.Pointer(unsafe.StringData(sa))) != UUIDLen {
		t.Fatal("b is not in the slot after a's")
	}
}

// Texts of every length, from one byte to more than a chunk, interleaved
// with UUIDs, are each found by the register's own string (from its
// address) and by a copy (by value); a string inside the text arena that
// does not start one of its texts, or starts one but is shorter, is
// found by value or not at all.
func TestNamesFindEveryMintedText(t *testing.T) {
	n := NewNames()
	rng := rand.New(rand.NewPCG(3, 4))
	var texts []string
	var handles []int32
	for i := range 3000 {
		size := 1 + rng.IntN(200)
		if i%997 == 0 {
			size = textChunkMax + 1 + rng.IntN(100) // beyond any chunk's size
		}
		text := fmt.Sprintf("%d:%s", i, strings.Repeat("é", size/2))
		if i%3 == 0 {
			n.MintUUID([16]byte{byte(i), byte(i >> 8), 1})
		}
		s, h := n.Mint(text)
		if s != text || unsafe.StringData(s) == unsafe.StringData(text) {
			t.Fatalf("text %d: minted %q, want a copy of %q", i, s, text)
		}
		texts, handles = append(texts, s), append(handles, h)
	}
	for i, s := range texts {
		h := handles[i]
		if got := n.Handle(s); got != h {
			t.Fatalf("text %d: Handle of the register's string = %d, want %d", i, got, h)
		}
		// From its address, not only by value: in the UUID arena when it
		// has a UUID's length, else in the text arena.
		at := n.inTexts
		if len(s) == UUIDLen {
			at = func(s string) int32 { return n.inArena(uintptr(unsafe.Pointer(unsafe.StringData(s)))) }
		}
		if got := at(s); got != h {
			t.Fatalf("text %d (%d bytes): not found from its address (%d), want %d", i, len(s), got, h)
		}
		if got := n.Handle(strings.Clone(s)); got != h {
			t.Fatalf("text %d: Handle of a copy = %d, want %d", i, got, h)
		}
		if again, ah := n.Mint(strings.Clone(s)); ah != h || unsafe.StringData(again) != unsafe.StringData(s) {
			t.Fatalf("text %d minted again: handle %d, want %d and the first string", i, ah, h)
		}
		if len(s) > 1 {
			// A prefix starts where the text does; a tail starts inside it,
			// behind bytes that may read as any handle.
			prefix, tail := s[:len(s)-1], s[1:]
			for _, part := range []string{prefix, tail} {
				if got, want := n.Handle(part), n.byValue[part]; got != want {
					t.Fatalf("text %d: Handle of a part %q = %d, want %d (by its value)", i, part, got, want)
				}
			}
		}
	}
	if n.Handle("never minted") != 0 {
		t.Fatal("a text never minted has a handle")
	}
	// Bytes that spell a handle in front of a string of its text's length
	// make it no text of the register.
	m := NewNames()
	_, h := m.Mint("ab")
	var spelled [4]byte
	binary.LittleEndian.PutUint32(spelled[:], uint32(h))
	b, _ := m.Mint(string(spelled[:]) + "zz")
	if got := m.Handle(b[4:]); got != 0 {
		t.Fatalf("the tail %q of another text, behind bytes that spell handle %d, has handle %d", b[4:], h, got)
	}
}

// An id of another length is registered in the text arena, and found by
// its value as well.
func TestNamesKeepOtherIDsByValue(t *testing.T) {
	n := NewNames()
	big := "session-" + strings.Repeat("x", 40)
	s, h := n.Mint(big[:9])
	if s != "session-x" || h != 1 || n.Handle("session-x") != 1 || n.Handle(strings.Clone(big[:9])) != 1 {
		t.Fatalf("Mint of a short id: %q %d, Handle %d", s, h, n.Handle("session-x"))
	}
	if unsafe.StringData(s) == unsafe.StringData(big) {
		t.Fatal("Mint kept the caller's string, a part of a larger one")
	}
}

// BenchmarkNamesHandle compares finding the handles of the ids of a large
// run (600,000, the ids of 200,000 submissions) from the arena's strings,
// from copies of them (a map lookup by value), and with a plain map.
func BenchmarkNamesHandle(b *testing.B) {
	n := NewNames()
	ids := NewIDs(3)
	const count = 600_000
	minted := make([]string, count)
	plain := make(map[string]int32, count)
	for i := range minted {
		minted[i], _ = n.MintUUID(uuid.Must(uuid.NewRandomFromReader(ids)))
		plain[strings.Clone(minted[i])] = int32(i + 1)
	}
	// A run mentions mostly ids made lately (a submission's ids are made
	// together and mentioned over a few frames): each mention here is of
	// one of the 64 ids made last.
	r := rand.New(rand.NewPCG(1, 2))
	order := make([]int, count)
	for i := range order {
		order[i] = max(0, i-r.IntN(64))
	}
	copies := make([]string, count)
	for i, s := range minted {
		copies[i] = strings.Clone(s)
	}
	for _, c := range []struct {
		name string
		find func(i int) int32
	}{
		{"arena", func(i int) int32 { return n.Handle(minted[i]) }},
		{"copy", func(i int) int32 { return n.Handle(copies[i]) }},
		{"map", func(i int) int32 { return plain[copies[i]] }},
	} {
		b.Run(c.name, func(b *testing.B) {
			sum := int32(0)
			for b.Loop() {
				for _, i := range order {
					sum += c.find(i)
				}
			}
			if sum == 0 {
				b.Fatal("no handle found")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/lookup")
		})
	}
}
