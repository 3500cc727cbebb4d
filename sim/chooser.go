// Package sim is the deterministic kernel of acpsim: the Chooser through which
// every fault decision passes, a virtual clock with an event queue, and the
// seeded stream for everything that is not a fault (ids, keys, texts).
//
// Nothing in this package starts a goroutine, reads the wall clock or uses the
// global random source, so a simulation driven by it is a pure function of its
// seed (or of its recorded decisions).
package sim

import (
	"math/rand/v2"
	"strconv"
)

// A Decision names one place where a fault may happen: what kind of fault,
// where (link, process incarnation, frame sequence number, protocol step) and
// how many options. Option 0 is always "no fault", so a decision missing from
// a recorded schedule replays as the healthy path.
type Decision struct {
	Kind string
	Site string
	N    int
	// A decision made by Numbered names its site only when the site is
	// read (Where): Site is then the prefix, n its number and step, when
	// stepped, what follows. A seed asks hundreds of decisions, and the
	// seeded chooser reads no site: only a fault, a replay or a search does.
	numbered, stepped bool
	n                 int
	step              string
}

// Numbered is the decision of kind with options options at the site
// prefix/n, or prefix/n/step when stepped: the same as Decision{Kind: kind,
// Site: the site, N: options}, with the site's string built only if it is
// read.
func Numbered(kind, prefix string, n int, step string, stepped bool, options int) Decision {
	return Decision{Kind: kind, Site: prefix, N: options, numbered: true, n: n, step: step, stepped: stepped}
}

// Where is the decision's site. A Chooser reads it instead of Site, which
// is only a prefix in a decision made by Numbered.
func (d Decision) Where() string {
	if !d.numbered {
		return d.Site
	}
	site := d.Site + "/" + strconv.Itoa(d.n)
	if d.stepped {
		site += "/" + d.step
	}
	return site
}

// Named is d with its site built: what a record of it keeps.
func (d Decision) Named() Decision {
	if !d.numbered {
		return d
	}
	return Decision{Kind: d.Kind, Site: d.Where(), N: d.N}
}

// Chooser picks an option for each Decision. Every fault in acpsim asks one;
// a fault that does not is a bug. Choose returns a value in [0, d.N).
type Chooser interface {
	Choose(d Decision) int
}

// Healthy never injects a fault. It is the Chooser of the heal phase and of a
// real Agent run without chaos.
type Healthy struct{}

// Choose always returns 0, the no-fault option.
func (Healthy) Choose(Decision) int { return 0 }

// Seeded draws decisions from a PCG stream. Rates gives, per Decision.Kind,
// the probability of a non-zero option; the non-zero options are then drawn
// uniformly. Kinds without a rate never fault.
type Seeded struct {
	rng   *rand.Rand
	Rates map[string]float64
}

// NewSeeded returns a Chooser seeded with seed. The fault stream is separate
// from the NewIDs stream of the same seed, so drawing an id never shifts the
// fault schedule.
func NewSeeded(seed uint64, rates map[string]float64) *Seeded {
	return &Seeded{rng: rand.New(rand.NewPCG(seed, 0x6661756c74)), Rates: rates} // "fault"
}

// Choose implements Chooser.
func (s *Seeded) Choose(d Decision) int {
	if d.N <= 1 {
		return 0
	}
	rate := s.Rates[d.Kind]
	if rate <= 0 || s.rng.Float64() >= rate {
		return 0
	}
	return 1 + s.rng.IntN(d.N-1)
}

// Choice is one decision together with the option taken.
type Choice struct {
	Decision
	Option int
}

// Recorder wraps a Chooser, counts decisions per kind and reports every
// non-zero choice to OnFault (the trace's "choose" events). Zero choices are
// not reported: they are the default a replay falls back to.
type Recorder struct {
	Inner   Chooser
	OnFault func(Choice)
	Counts  map[string]*KindCount
	order   []string
}

// KindCount is how often one kind of decision was asked and how often it
// produced a fault.
type KindCount struct {
	Kind   string
	Asked  int
	Faults int
}

// Choose implements Chooser.
func (r *Recorder) Choose(d Decision) int {
	opt := r.Inner.Choose(d)
	if opt < 0 || opt >= max(d.N, 1) {
		opt = 0 // a schedule from elsewhere (replay, rapid) may not fit this decision
	}
	if r.Counts == nil {
		r.Counts = map[string]*KindCount{}
	}
	c := r.Counts[d.Kind]
	if c == nil {
		c = &KindCount{Kind: d.Kind}
		r.Counts[d.Kind] = c
		r.order = append(r.order, d.Kind)
	}
	c.Asked++
	if opt != 0 {
		c.Faults++
		if r.OnFault != nil {
			r.OnFault(Choice{Decision: d.Named(), Option: opt})
		}
	}
	return opt
}

// Tally returns the per-kind counts in the order kinds were first asked.
func (r *Recorder) Tally() []KindCount {
	out := make([]KindCount, 0, len(r.order))
	for _, k := range r.order {
		out = append(out, *r.Counts[k])
	}
	return out
}

// BySite answers each decision from its own stream (NewNamedIDs of the
// seed, named by the decision's kind and site): the same site gets the same option
// whatever was asked before it. A run whose decisions come in an order the
// seed does not fix (a real Agent's processes answering side by side)
// still gets, site by site, the choices of its seed.
type BySite struct {
	Seed  uint64
	Rates map[string]float64
}

// Choose implements Chooser.
func (b BySite) Choose(d Decision) int {
	rate := b.Rates[d.Kind]
	if d.N <= 1 || rate <= 0 {
		return 0
	}
	ids := NewNamedIDs(b.Seed, d.Kind+"\x00"+d.Where())
	if ids.Float64() >= rate {
		return 0
	}
	return 1 + ids.IntN(d.N-1)
}
