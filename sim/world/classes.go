package world

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/netfault"
)

// Swarm fault classes, as TigerBeetle's VOPR does it: each seed of a swarm
// switches whole classes of faults on or off and draws their rates, so some
// seeds see only kills, some only delays and cuts, some nothing, and a bug
// that one fault masks (a cut that always comes before the kill) still
// gets seeds where it is alone.
//
// A class groups the fault kinds of netfault.Faults that do one thing to
// the protocol. Two kinds of fault the issue names are not modelled, so no
// class stands for them: a duplicate (a pipe and a WebSocket never deliver
// a frame twice, and an HTTP POST whose 202 is lost is not resent by the
// link: the Client's retry is a new request with a new JSON-RPC id) and a
// partition (an endpoint unreachable while both processes live on; what
// the links have is a connection that ends, the cut class). route is not a
// fault but the node a connection lands on (--nodes): no class switches it.

// FaultClass is one class of faults a swarm seed switches on or off.
type FaultClass struct {
	Name  string
	Kinds []string // its netfault kinds
	Issue string   // what the issue calls it
	Doc   string
}

// FaultClasses lists the classes in the order their draws are made. Append
// new classes at the end: the draws of the earlier ones then stay the same.
var FaultClasses = []FaultClass{
	{"delay", []string{netfault.Delay}, "delay", "frames held back (a pipe keeps its order, POSTs may overtake each other)"},
	{"cut", []string{netfault.Cut, netfault.ConnExpired}, "reconnect", "a connection ends under the Client: a pipe or WebSocket cut, an HTTP connection id expiring; the Client reconnects and resumes"},
	{"kill", []string{netfault.Kill}, "kill", "Agent processes killed between two outputs of a step"},
	{"lose-unsynced", []string{netfault.LoseUnsynced}, "restart", "a killed Agent restarts without the writes it had not synced"},
	{"client-restart", []string{netfault.ClientRestart}, "client restart", "the Client process dies and restarts from its saved state"},
	{"reject", []string{netfault.Reject}, "-", "the Agent refuses a prompt before insertion with a transient -32603"},
	{"loss", []string{netfault.PostLost, netfault.AcceptedLost, netfault.StreamBreak}, "drop", "HTTP (--link http or mixed): a POST lost before the Agent read it, its 202 lost after, an SSE stream broken with its events"},
}

// NotModelled names the fault classes of the issue no class stands for, and why.
var NotModelled = []struct{ Name, Why string }{
	{"duplicate", "pipes and WebSocket never deliver a frame twice; HTTP's lost 202 (accepted-lost, class loss) leaves the resend to the Client, which sends a new request"},
	{"partition", "no endpoint is unreachable while its processes live on; a connection that ends is the cut class"},
}

// classOn is the probability a class is on in a seed; guidedOn when guided
// mode is after pairs only its kinds reach.
const (
	classOn  = 0.5
	guidedOn = 0.75
)

// classStream is the seed's stream of class draws: a PCG of its own
// ("classes"), apart from the fault stream (sim.NewSeeded) and the id
// stream (sim.NewIDs), so switching classes on shifts neither.
func classStream(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x636c6173736573))
}

// ClassDraw is what one seed's class draw made of the base rates: its
// effective rates and the classes it switched on.
type ClassDraw struct {
	Rates map[string]float64
	On    []string // classes on, in FaultClasses order
}

// DrawClasses switches classes on or off for seed and draws the rates of
// the kinds of each class that is on: log-uniform between a quarter and four
// times the base rate (capped at 1), rounded to two significant digits so
// the rerun command states them exactly. A class whose kinds all have base
// rate 0 (the HTTP kinds on stdio) is absent: off, and not counted. The draws
// are the same for every base, so one class's draw does not depend on
// another's rates. favour, if set, lists the classes that are on with
// probability guidedOn instead of classOn.
func DrawClasses(seed uint64, base map[string]float64, favour map[string]bool) ClassDraw {
	rng := classStream(seed)
	d := ClassDraw{Rates: make(map[string]float64, len(base))}
	for k, v := range base {
		d.Rates[k] = v
	}
	for _, c := range FaultClasses {
		p := classOn
		if favour[c.Name] {
			p = guidedOn
		}
		on := rng.Float64() < p
		present := false
		for _, k := range c.Kinds {
			f := math.Exp2(4*rng.Float64() - 2) // draw for every kind, on or off
			r := base[k]
			if r <= 0 {
				continue
			}
			present = true
			if on {
				d.Rates[k] = roundRate(min(1, r*f))
			} else {
				d.Rates[k] = 0
			}
		}
		if on && present {
			d.On = append(d.On, c.Name)
		}
	}
	return d
}

// roundRate keeps two significant digits.
func roundRate(r float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 2, 64), 64)
	return v
}

// PresentClasses are the classes with a kind of non-zero rate in base.
func PresentClasses(base map[string]float64) []string {
	var out []string
	for _, c := range FaultClasses {
		for _, k := range c.Kinds {
			if base[k] > 0 {
				out = append(out, c.Name)
				break
			}
		}
	}
	return out
}

// ClassedKinds are the kinds of some class with a non-zero rate in base,
// sorted: the rates a class draw may change.
func ClassedKinds(base map[string]float64) []string {
	var out []string
	for _, c := range FaultClasses {
		for _, k := range c.Kinds {
			if base[k] > 0 {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// FormatRates renders the rates of kinds as --fault-rates reads them
// (kind=rate,… in the order given), each rate exactly as it is.
func FormatRates(rates map[string]float64, kinds []string) string {
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, k+"="+strconv.FormatFloat(rates[k], 'g', -1, 64))
	}
	return strings.Join(parts, ",")
}

// ClassTotal is how many seeds of a swarm had a class on, and how many of
// those failed.
type ClassTotal struct {
	Class  string
	On     int
	Failed int
}
