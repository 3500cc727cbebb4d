package proc

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"syscall"
)

// killSpawned sends SIGKILL to every process carrying c's token in its
// environment (or, with holders, holding one of its output pipes) and, when
// root is not 0, to every descendant of root (which finds those that
// cleared their environment, while their parents live). It repeats until a
// look finds nothing new: one that forked as it was being killed is found
// the next time.
func killSpawned(c *Child, root int, holders bool) {
	killed := map[int]bool{}
	for range 5 {
		found := false
		for _, pid := range spawned(c, root, holders) {
			if !killed[pid] {
				killed[pid], found = true, true
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if !found {
			return
		}
	}
}

// spawned lists the live processes /proc shows carrying c's token (or,
// with holders, holding its pipes), or descending from root.
func spawned(c *Child, root int, holders bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	children := map[int][]int{}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if root > 0 { // a zombie, gone from the tree, has neither environment nor files
			ppid, live := procParent(pid)
			if !live {
				continue
			}
			children[ppid] = append(children[ppid], pid)
		}
		if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && hasMark(env, c.token) || holders && holdsPipe(e.Name(), c.pipes) {
			out = append(out, pid)
		}
	}
	if root > 0 {
		for queue := children[root]; len(queue) > 0; queue = queue[1:] {
			out = append(out, queue[0])
			queue = append(queue, children[queue[0]]...)
		}
	}
	return out
}

// procParent reads a process's parent from /proc/PID/stat; live is false
// for a process that is gone or a zombie (dead, only not yet reaped).
func procParent(pid int) (ppid int, live bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 || string(f[0]) == "Z" {
		return 0, false
	}
	ppid, err = strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// holdsPipe says whether process pid has one of pipes open.
func holdsPipe(pid string, pipes []string) bool {
	fds, err := os.ReadDir("/proc/" + pid + "/fd")
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if link, err := os.Readlink("/proc/" + pid + "/fd/" + fd.Name()); err == nil && slices.Contains(pipes, link) {
			return true
		}
	}
	return false
}

// pipeName is how /proc names the pipe f is an end of ("pipe:[1234]").
func pipeName(f *os.File) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return "pipe:[" + strconv.FormatUint(st.Ino, 10) + "]"
}

// Running reports whether a thread of the child is running or waiting for
// a CPU (or in uninterruptible sleep): it has not finished reacting to what
// it was given. A child blocked on a read or a timer sleeps. Only the child
// itself is looked at (its threads), not what it spawned: cheap enough to
// ask on every turn of check's loop.
func (c *Child) Running() bool {
	select {
	case <-c.gone:
		return false
	default:
	}
	dir := "/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, t := range tasks {
		stat, err := os.ReadFile(dir + "/" + t.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state …: comm may hold spaces and parentheses.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
			if s := stat[i+2]; s == 'R' || s == 'D' {
				return true
			}
		}
	}
	return false
}
