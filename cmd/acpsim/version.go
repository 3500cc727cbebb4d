package main

import (
	"fmt"
	"regexp"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// unknownVersion is what the Go toolchain itself calls a build it cannot
// version.
const unknownVersion = "(devel)"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print acpsim's module version and the VCS commit it was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}

// versionLine is "acpsim VERSION commit REV", REV with "+modified" when the
// working tree had uncommitted changes; a build without a VCS stamp says so,
// and names the commit its pseudo-version holds when it has one.
func versionLine() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	version := unknownVersion
	if bi != nil && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	rev, modified := buildVCS(bi)
	switch {
	case rev != "" && modified:
		return fmt.Sprintf("acpsim %s commit %s+modified", version, rev)
	case rev != "":
		return fmt.Sprintf("acpsim %s commit %s", version, rev)
	}
	if short := pseudoVersionCommit.FindStringSubmatch(version); short != nil {
		return fmt.Sprintf("acpsim %s commit %s (from the module version; the build has no VCS stamp)", version, short[1])
	}
	return fmt.Sprintf("acpsim %s, no commit stamp (go build and go install in a git checkout record one unless -buildvcs=false, as GOFLAGS may set; go run does not)", version)
}

// pseudoVersionCommit finds the commit a pseudo-version names (as go install
// …@latest of an untagged commit records it), e.g. abcdef123456 in
// v0.0.0-20261204152824-abcdef123456.
var pseudoVersionCommit = regexp.MustCompile(`\d{14}-([0-9a-f]{12})(\+incompatible)?$`)

// buildVCS is the build's VCS stamp: the revision ("" when the build has
// none, as with -buildvcs=false) and whether the tree had changes.
func buildVCS(bi *debug.BuildInfo) (rev string, modified bool) {
	if bi == nil {
		return "", false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return rev, modified
}
