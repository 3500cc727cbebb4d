package main

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the repository's top, seen from this package's directory.
const repoRoot = "../.."

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading  = regexp.MustCompile("(?m)^#{1,6} +(.+?) *$")
	fencedCode = regexp.MustCompile("(?ms)^```.*?^```")
	// A reference to a section of a repository document from code, a
	// Makefile or a --help text: docs/design.md#the-house.
	sectionRef = regexp.MustCompile(`\b((?:README|docs/[\w-]+)\.md)#([\w-]+)`)
	notInSlug  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// slug is GitHub's anchor for a heading: lower case, punctuation (backticks,
// slashes, commas, parentheses) dropped, spaces turned into hyphens.
func slug(heading string) string {
	return strings.ReplaceAll(notInSlug.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}

// anchors are the anchors of a Markdown file's headings, a repeated one
// numbered as GitHub numbers it (name, name-1, ...).
func anchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := fencedCode.ReplaceAllString(string(b), "")
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range mdHeading.FindAllStringSubmatch(text, -1) {
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// repoFiles lists the repository's files with one of exts (or named one of
// exts), relative to its top, leaving out installed dependencies.
func repoFiles(t *testing.T, exts ...string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		for _, e := range exts {
			if !d.IsDir() && (strings.HasSuffix(d.Name(), e) || d.Name() == e) {
				rel, _ := filepath.Rel(repoRoot, p)
				out = append(out, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every relative link of the repository's Markdown resolves to a file in the
// repository, and every #anchor to a heading of the file it names: a clone
// has no design file outside the repository and no numbered sections.
func TestEveryDocumentLinkResolves(t *testing.T) {
	checked := 0
	for _, doc := range repoFiles(t, ".md") {
		b, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		text := fencedCode.ReplaceAllString(string(b), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			resolved := doc
			if file != "" {
				resolved = path.Clean(path.Join(path.Dir(doc), file))
			}
			checked++
			if strings.HasPrefix(resolved, "../") {
				t.Errorf("%s: link %s leaves the repository", doc, target)
				continue
			}
			if _, err := os.Stat(filepath.Join(repoRoot, resolved)); err != nil {
				t.Errorf("%s: link %s: no file %s in the repository", doc, target, resolved)
				continue
			}
			if anchor != "" && !anchors(t, filepath.Join(repoRoot, resolved))[anchor] {
				t.Errorf("%s: link %s: %s has no heading with anchor #%s", doc, target, resolved, anchor)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d relative links found: is the link pattern still right?", checked)
	}
}

// outsideDesign is the name of the design card outside the repository.
var outsideDesign = strings.ToUpper("design") + ".md"

// Code comments, the Makefile and --help texts point at document sections
// as FILE.md#anchor, never by a section number of the design card kept
// outside the repository; each anchor is a heading there.
func TestEverySectionReferenceResolves(t *testing.T) {
	checked := 0
	for _, src := range repoFiles(t, ".go", ".md", "Makefile", ".mjs", ".sh") {
		b, err := os.ReadFile(filepath.Join(repoRoot, src))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), outsideDesign) {
			t.Errorf("%s names %s, a file outside the repository: point at docs/design.md's sections", src, outsideDesign)
		}
		for _, m := range sectionRef.FindAllStringSubmatch(string(b), -1) {
			checked++
			file := filepath.Join(repoRoot, m[1])
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: %s#%s: no file %s", src, m[1], m[2], m[1])
				continue
			}
			if !anchors(t, file)[m[2]] {
				t.Errorf("%s: %s#%s: no heading with that anchor", src, m[1], m[2])
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d section references found: is the pattern still right?", checked)
	}
}
