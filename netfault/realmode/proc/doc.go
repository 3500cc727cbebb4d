// Package proc starts and ends the child processes of real mode: an Agent
// or a Client adapter started (StartChild) such that nothing it starts
// outlives it and no wait on it hangs; an Agent speaking ndjson on its pipes
// (Process, the stdio connection acpsim check and conform drive); the
// bounded reading of a child's lines (ReadLine); its stderr, kept and cut
// down for a verdict (StderrTail, StderrExcerpt); a --restart command
// (RunRestart); and the registry of the children still running, which
// KillAll ends when acpsim is interrupted.
package proc
