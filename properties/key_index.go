package properties

import (
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/acpsim/acpsim/actors/acp"
)

// keyIndex finds every Client key inside a string in time linear in the
// string. A key that leaks only as a whole string (under leakAsToken code
// points) is one lookup of the string. A key shaped as a UUID (every key
// the simulator's Clients draw, and most real ones) is found at the dashes
// of a string, which a byte search finds: one lookup per UUID-shaped
// window. Other keys of gramLen bytes or more are found by their first
// gramLen bytes: one lookup per position of the string, whatever the
// number and lengths of the keys.
// Shorter ones have a Rabin-Karp rolling hash per length, of which there are
// at most four. A rolling hash per length for every key made the scan of a
// string cost its length times the keys' distinct lengths, hundreds once
// Clients draw keys of every length.
type keyIndex struct {
	// byHandle holds the keys that came with a handle (addByHandle), the
	// simulator's; byString those read from a frame's bytes first. A key is
	// one keyInfo under its handle, its string or both: the simulator's
	// keys cost no map.
	byHandle []*keyInfo
	byString map[string]*keyInfo
	// handleOf is the handle the checker's interner gave a string, if any
	// (Interner.lookup): a key read from the bytes that came with a
	// handle before is found under it.
	handleOf func(string) (int32, bool)
	whole    map[string]*keyInfo // the keys that leak only as a whole string
	// uuids are the keys shaped as UUIDs (every key the simulator's
	// Clients draw): found at the dashes of a string, which a byte search
	// finds, with no gram, filter or hash of their own.
	uuids map[string]*keyInfo
	// uuidFirst has a bit for each UUID key's first gramLen bytes: most
	// UUIDs in an Agent's frames are its ids, not keys, and a bit rejects
	// one for less than its shape and a lookup cost.
	uuidFirst bitFilter
	lens      []int // the lengths of the short token keys, ascending
	byLen     map[int]*lenIndex
	grams     gramIndex
	hint      int // keys expected
	// literalsHold is whether a key is found in one of acp.DigestLiterals:
	// until one is, the leak scan skips a digest's literal strings.
	literalsHold bool
	// shortest is the length of the shortest key in bytes, 0 while there
	// is none: no string shorter holds a key, and most of a frame's are.
	shortest int
	// own is a key as the index keeps it: the checker's own (a copy, or
	// the string itself when the checker borrows its events).
	own func(string) string
	// slab is where the next keys' keyInfos are cut from: one allocation
	// for many keys, not one each.
	slab []keyInfo
}

// gramLen is how many of a long key's first bytes index it.
const gramLen = 8

// bitFilter has a bit set for each value it was told of: most windows of
// most strings match no key, and a bit costs less to test than a map
// lookup (the lookup per window was most of the scan). It holds at least 16
// bits per value, so that one window in 16 or fewer gets past it.
type bitFilter struct {
	bits    []uint64
	logBits uint
}

const minFilterLog = 9 // 512 bits: a short run's few keys

func (f *bitFilter) bit(h uint64) (word int, mask uint64) {
	b := (h * 0x9E3779B97F4A7C15) >> (64 - f.logBits)
	return int(b >> 6), 1 << (b & 63)
}

func (f *bitFilter) mayHave(h uint64) bool {
	w, m := f.bit(h)
	return f.bits[w]&m != 0
}

// reserve sizes an empty filter for n values, so that it need not grow
// until it holds more.
func (f *bitFilter) reserve(n int) {
	if f.logBits != 0 {
		return
	}
	f.logBits = minFilterLog
	for n*16 > 1<<f.logBits {
		f.logBits++
	}
	f.bits = make([]uint64, 1<<(f.logBits-6))
}

// note sets h's bit; n is how many values the filter will then hold, and
// all lists them (in any order: the bits are the same) for when the filter
// must grow to keep 16 bits a value.
func (f *bitFilter) note(h uint64, n int, all iter.Seq[uint64]) {
	if f.logBits == 0 || n*16 > 1<<f.logBits {
		f.logBits = max(minFilterLog, f.logBits+1)
		for n*16 > 1<<f.logBits {
			f.logBits++
		}
		f.bits = make([]uint64, 1<<(f.logBits-6))
		for k := range all {
			w, m := f.bit(k)
			f.bits[w] |= m
		}
	}
	w, m := f.bit(h)
	f.bits[w] |= m
}

type lenIndex struct {
	pow    uint64 // hashBase^(len-1)
	hash   map[uint64]*keyInfo
	filter bitFilter
}

// gramIndex holds the long keys by their first gramLen bytes.
type gramIndex struct {
	// keys are the long keys by their first gramLen bytes, each gram's
	// threaded by keyInfo.next (which only short keys use otherwise).
	keys   map[uint64]*keyInfo
	filter bitFilter
	// shortest is the shortest key's length: no key starts at a position
	// closer than that to the end of a string, so a string shorter than
	// every key (most of them, when the keys are UUIDs) is not scanned.
	shortest int
}

// gramAt is the gramLen bytes of s from i, as a number.
func gramAt(s string, i int) uint64 {
	_ = s[i+gramLen-1]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

const hashBase = 1099511628211

func rollHash(b string) uint64 {
	var h uint64
	for i := 0; i < len(b); i++ {
		h = h*hashBase + uint64(b[i])
	}
	return h
}

// newKeyIndex makes an index for about hint keys; own is how it keeps a
// key's string, and handleOf (nil: none) the handle a string has, which
// must be the handle addByHandle is given for it: both from one Interner.
func newKeyIndex(hint int, own func(string) string, handleOf func(string) (int32, bool)) *keyIndex {
	return &keyIndex{byLen: map[int]*lenIndex{}, hint: hint, own: own, handleOf: handleOf}
}

// addByHandle is add for a key whose handle (Interner.ID) is h: after its
// first time found by it, not looked up by its string.
func (x *keyIndex) addByHandle(h int32, key string) *keyInfo {
	if h <= noID {
		return x.add(key)
	}
	at := byIndex(&x.byHandle, h)
	if *at == nil {
		if *at = x.byString[key]; *at == nil { // not read from bytes before
			*at = x.fresh(key)
		}
	}
	return *at
}

// get is the key indexed as key, nil if none is.
func (x *keyIndex) get(key string) *keyInfo {
	if ki := x.byString[key]; ki != nil {
		return ki
	}
	if len(x.byHandle) > 0 && x.handleOf != nil {
		if h, ok := x.handleOf(key); ok && h > noID && int(h) < len(x.byHandle) {
			return x.byHandle[h]
		}
	}
	return nil
}

// add indexes key and returns it (nil for "").
func (x *keyIndex) add(key string) *keyInfo {
	if key == "" {
		return nil
	}
	if ki := x.get(key); ki != nil {
		return ki
	}
	ki := x.fresh(key)
	if x.byString == nil {
		x.byString = make(map[string]*keyInfo, x.hint)
	}
	x.byString[ki.key] = ki
	return ki
}

// fresh indexes key, which is not indexed yet, for the leak scan.
func (x *keyIndex) fresh(key string) *keyInfo {
	ki := x.index(x.own(key)) // not the frame it was read from
	for _, lit := range literals {
		if x.literalsHold {
			break
		}
		if len(key) <= len(lit) { // find reports only keys that fit in the string
			x.find(lit, func(found *keyInfo) { x.literalsHold = x.literalsHold || found == ki })
		}
	}
	return ki
}

// literals are the strings a digest passes as literal (acp.DigestLiterals).
var literals = acp.DigestLiterals()

// index indexes a key not indexed yet.
func (x *keyIndex) index(key string) *keyInfo {
	if x.shortest == 0 || len(key) < x.shortest {
		x.shortest = len(key)
	}
	n := utf8.RuneCountInString(key)
	if len(x.slab) == cap(x.slab) {
		x.slab = make([]keyInfo, 0, min(max(16, x.hint/4), 4096))
	}
	x.slab = append(x.slab, keyInfo{key: key, anywhere: n >= leakAnywhere, token: n >= leakAsToken})
	ki := &x.slab[len(x.slab)-1]
	if !ki.token {
		if x.whole == nil {
			x.whole = map[string]*keyInfo{}
		}
		x.whole[key] = ki
		return ki
	}
	if uuidShaped(key) {
		if x.uuids == nil {
			x.uuids = make(map[string]*keyInfo, x.hint)
			x.uuidFirst.reserve(x.hint) // rebuilt as it grows, from a walk of uuids
		}
		x.uuids[key] = ki
		x.uuidFirst.note(gramAt(key, 0), len(x.uuids), func(yield func(uint64) bool) {
			for k := range x.uuids { // only fills a filter: the order cannot show
				if !yield(gramAt(k, 0)) {
					return
				}
			}
		})
		return ki
	}
	if len(key) >= gramLen {
		x.addLong(ki)
		return ki
	}
	n = len(key)
	li := x.byLen[n]
	if li == nil {
		li = &lenIndex{pow: 1, hash: map[uint64]*keyInfo{}}
		for i := 1; i < n; i++ {
			li.pow *= hashBase
		}
		x.byLen[n] = li
		x.lens = append(x.lens, n)
		sort.Ints(x.lens)
	}
	h := rollHash(key)
	ki.next, li.hash[h] = li.hash[h], ki
	li.filter.note(h, len(li.hash), maps.Keys(li.hash))
	return ki
}

func (x *keyIndex) addLong(ki *keyInfo) {
	g := &x.grams
	if g.keys == nil {
		g.keys = make(map[uint64]*keyInfo, x.hint)
	}
	k := gramAt(ki.key, 0)
	ki.next, g.keys[k] = g.keys[k], ki
	if g.shortest == 0 || len(ki.key) < g.shortest {
		g.shortest = len(ki.key)
	}
	g.filter.note(k, len(g.keys), maps.Keys(g.keys))
}

// keyAt is a key found at a position of a string.
type keyAt struct {
	ki  *keyInfo
	pos int
}

// find calls fn for every occurrence in s of a key that leaks there: a long
// key anywhere, a shorter one as a delimited token, the shortest as all of
// s. It calls fn by the key's length, then its position in s, as a scan per
// length finds them.
func (x *keyIndex) find(s string, fn func(*keyInfo)) {
	if x.shortest == 0 || len(s) < x.shortest {
		return
	}
	var buf [4]keyAt
	found := x.findShort(s, buf[:0])
	// A whole key has fewer than leakAsToken code points: no longer string
	// is one, and most are longer (hashing each for the lookup was a
	// seed's 1%).
	if len(s) < leakAsToken*utf8.UTFMax && x.whole != nil {
		if ki := x.whole[s]; ki != nil {
			found = append(found, keyAt{ki, 0})
		}
	}
	if g := &x.grams; g.keys != nil && len(s) >= g.shortest {
		found = x.findLong(s, found)
	}
	if x.uuids != nil && len(s) >= uuidLen {
		found = x.findUUIDs(s, found)
	}
	if len(found) > 1 {
		// Two keys at one length and position would be one string, one key.
		slices.SortFunc(found, func(a, b keyAt) int {
			if la, lb := len(a.ki.key), len(b.ki.key); la != lb {
				return la - lb
			}
			return a.pos - b.pos
		})
	}
	for _, f := range found {
		fn(f.ki)
	}
}

// findLong appends the long keys s holds to found.
func (x *keyIndex) findLong(s string, found []keyAt) []keyAt {
	g := &x.grams
	for i := 0; i+g.shortest <= len(s); i++ {
		k := gramAt(s, i)
		if !g.filter.mayHave(k) {
			continue
		}
		for ki := g.keys[k]; ki != nil; ki = ki.next {
			if n := len(ki.key); i+n <= len(s) && s[i:i+n] == ki.key && ki.leaksAt(s, i) {
				found = append(found, keyAt{ki, i})
			}
		}
	}
	return found
}

// uuidLen is the length of a UUID's text, 8-4-4-4-12 hex digits.
const uuidLen = 36

// uuidShaped says whether s is the text of a UUID, in either case: a key
// of that shape leaks anywhere (leakAnywhere), and is found by its first
// dash (findUUIDs).
func uuidShaped(s string) bool {
	if len(s) != uuidLen {
		return false
	}
	if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	for i := 0; i < uuidLen; i++ {
		if !hexDigit[s[i]] && i != 8 && i != 13 && i != 18 && i != 23 {
			return false
		}
	}
	return true
}

// hexDigit holds the bytes that are hex digits, in either case.
var hexDigit = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] = true
	}
	return t
}()

// findUUIDs appends the UUID-shaped keys s holds to found: every UUID in s
// has its first dash eight bytes in, so each dash is tried as a first one.
func (x *keyIndex) findUUIDs(s string, found []keyAt) []keyAt {
	// A first dash is eight bytes into its UUID, which must end in s: only
	// the dashes from 8 to len(s)-28 are tried (one, in a UUID alone).
	last := len(s) - uuidLen + 8
	for i := 8; i <= last; {
		j := strings.IndexByte(s[i:last+1], '-')
		if j < 0 {
			break
		}
		d := i + j
		if at := d - 8; x.uuidFirst.mayHave(gramAt(s, at)) {
			if w := s[at : at+uuidLen]; uuidShaped(w) {
				if ki := x.uuids[w]; ki != nil {
					found = append(found, keyAt{ki, at})
				}
			}
		}
		i = d + 1
	}
	return found
}

// findShort appends the token keys shorter than gramLen that s holds to
// found.
func (x *keyIndex) findShort(s string, found []keyAt) []keyAt {
	for _, n := range x.lens {
		if n > len(s) {
			break
		}
		li := x.byLen[n]
		h := rollHash(s[:n])
		for i := 0; ; i++ {
			if li.filter.mayHave(h) {
				for ki := li.hash[h]; ki != nil; ki = ki.next {
					if s[i:i+n] == ki.key && ki.leaksAt(s, i) {
						found = append(found, keyAt{ki, i})
					}
				}
			}
			if i+n >= len(s) {
				break
			}
			h = (h-uint64(s[i])*li.pow)*hashBase + uint64(s[i+n])
		}
	}
	return found
}

// leaksAt says whether ki, found at position i of s, leaks there.
func (ki *keyInfo) leaksAt(s string, i int) bool {
	n := len(ki.key)
	return ki.anywhere || n == len(s) || ki.token && delimited(s, i, i+n)
}
