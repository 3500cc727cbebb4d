// This file holds the lanes: which the shown events use, what kind each is,
// their order across the page, and the lane a fault decision is drawn on.

package view

import (
	"sort"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/traces"
)

// laneSet collects the lanes the shown events use and orders them like the
// system they draw: each Client, then its links, then its Agent's endpoint
// and processes; links from the observer after the processes they reach;
// the observer last.
type laneSet struct {
	lanes []lane
	at    map[string]int // name → index into lanes
	first map[string]int // name → order of first appearance
	// links lists link lanes in first-appearance order with the index of
	// the event that brought each in, for choose sites that name a link by
	// its prefix ("c1:http/post/4" → c1:http#5).
	links []laneAt
	event int // index of the event being noted
}

type laneAt struct {
	name  string
	event int
}

func newLaneSet() *laneSet { return &laneSet{at: map[string]int{}, first: map[string]int{}} }

func (ls *laneSet) add(name, kind string) {
	if name == "" {
		return
	}
	if _, ok := ls.first[name]; ok {
		return
	}
	ls.first[name] = len(ls.lanes)
	ls.lanes = append(ls.lanes, lane{Name: name, Kind: kind})
	if kind == "link" {
		ls.links = append(ls.links, laneAt{name, ls.event})
	}
}

// noteEvent adds the lanes e is drawn on. choose events name sites, not
// lanes: they are placed on a lane other events brought in (siteLane).
func (ls *laneSet) noteEvent(e *traces.Event, i int) {
	ls.event = i
	switch e.Kind {
	case traces.KindSend, traces.KindDeliver, traces.KindDrop:
		ls.add(e.From, nameKind(e.From))
		ls.add(e.Link, "link")
		ls.add(e.To, nameKind(e.To))
	case traces.KindSubmit, traces.KindOutcome:
		ls.add(e.Client, nameKind(e.Client))
	case traces.KindConnect, traces.KindDisconnect, traces.KindStream, traces.KindRoute:
		ls.add(e.From, nameKind(e.From))
		ls.add(e.Link, "link")
		ls.add(e.To, nameKind(e.To))
	case traces.KindKill, traces.KindRestart, traces.KindInsert:
		ls.add(e.From, nameKind(e.From))
	case traces.KindTimer:
		ls.add(e.To, nameKind(e.To))
	}
}

// nameKind guesses what an endpoint is from its name: c1 and the observer
// are Clients, a1 an Agent endpoint, a1#2 an Agent process.
func nameKind(name string) string {
	switch {
	case name == traces.Observer:
		return "client"
	case strings.Contains(name, ":"):
		return "link"
	}
	if n, _ := nameNumber(name, 'c'); n > 0 {
		return "client"
	}
	if n, _ := nameNumber(name, 'a'); n > 0 {
		return "agent"
	}
	return "other"
}

// nameNumber reads names like c3 (3, 0) and a1#2 (1, 2); 0 when name is not
// one of them.
func nameNumber(name string, prefix byte) (n, incarnation int) {
	if len(name) < 2 || name[0] != prefix {
		return 0, 0
	}
	base, inc, hasInc := strings.Cut(name[1:], "#")
	n, err := strconv.Atoi(base)
	if err != nil || n <= 0 {
		return 0, 0
	}
	if hasInc {
		if incarnation, err = strconv.Atoi(inc); err != nil {
			return 0, 0
		}
	}
	return n, incarnation
}

// rank places a lane: by installation (c1 with a1), then by role in it.
type rank struct{ group, role, n, first int }

const lastGroup = 1 << 30

func (ls *laneSet) rank(name string) rank {
	r := rank{group: lastGroup - 1, role: 0, first: ls.first[name]}
	switch {
	case name == traces.Observer:
		r.group = lastGroup
	case strings.Contains(name, ":"):
		left, right, _ := strings.Cut(name, ":")
		if left == traces.Observer {
			if n, _ := nameNumber(right, 'a'); n > 0 {
				r.group, r.role = n, 4
			}
		} else if n, _ := nameNumber(left, 'c'); n > 0 {
			r.group, r.role = n, 1
		}
	default:
		if n, _ := nameNumber(name, 'c'); n > 0 {
			r.group, r.role = n, 0
		} else if n, inc := nameNumber(name, 'a'); n > 0 {
			r.group, r.role, r.n = n, 2, inc
			if inc > 0 {
				r.role = 3
			}
		}
	}
	return r
}

func (ls *laneSet) order() {
	sort.SliceStable(ls.lanes, func(i, j int) bool {
		a, b := ls.rank(ls.lanes[i].Name), ls.rank(ls.lanes[j].Name)
		switch {
		case a.group != b.group:
			return a.group < b.group
		case a.role != b.role:
			return a.role < b.role
		case a.n != b.n:
			return a.n < b.n
		}
		return a.first < b.first
	})
	for i, l := range ls.lanes {
		ls.at[l.Name] = i
	}
}

func (ls *laneSet) index(name string) int {
	if i, ok := ls.at[name]; ok {
		return i
	}
	return -1
}

// siteLane places a fault decision on the lane its site names: a process
// (a1#1/14/respond-prompt), a link (c1:a1#1/a2c/7), a link by its prefix
// (c1:http/post/4: the latest such link shown by event i, else the first)
// or a Client (c1/step/3); -1 when none is shown.
func (ls *laneSet) siteLane(site string, i int) int {
	head, _, _ := strings.Cut(site, "/")
	if l := ls.index(head); l >= 0 {
		return l
	}
	found := ""
	for _, l := range ls.links {
		if strings.HasPrefix(l.name, head+"#") && (found == "" || l.event <= i) {
			found = l.name
		}
	}
	if found != "" {
		return ls.index(found)
	}
	if client, _, ok := strings.Cut(head, ":"); ok {
		return ls.index(client)
	}
	return -1
}
