// Package docwords holds the documentation to a reading time: the road a
// new user reads first (README, docs/handler.md, docs/deploy.md) and all
// of README and docs/ together, in words as `wc -w` counts them, code
// blocks included.
package docwords

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The ceilings only go down: lower them whenever a change shortens the
// docs. The v1.0 goals (issue 42) are 3,500 words for the road and 30,000
// for everything; long proof and benchmark tables belong in results/.
const (
	maxRoad  = 3052  // 2,975 + README's table beside Powertools (issue 43)
	maxDocs  = 29995 // at the 30,000 goal: README's table beside Powertools, operate.md's stream alarms (issue 43), less trims
	roadGoal = 3500
	docsGoal = 30000
)

// road is what a new user reads, in order, to run the handler and deploy
// it.
var road = []string{"README.md", "docs/handler.md", "docs/deploy.md"}

func words(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(strings.Fields(string(b)))
}

// TestWords prints each page's words (with -v) and holds the road and the
// whole at or under their ceilings.
func TestWords(t *testing.T) {
	root := "../.."
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs/*.md: %v, %d pages", err, len(pages))
	}
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	count := map[string]int{}
	total, roadWords := 0, 0
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		count[rel] = words(t, p)
		total += count[rel]
		if slices.Contains(road, rel) {
			roadWords += count[rel]
		}
	}
	slices.SortFunc(pages, func(a, b string) int {
		ra, _ := filepath.Rel(root, a)
		rb, _ := filepath.Rel(root, b)
		return count[filepath.ToSlash(rb)] - count[filepath.ToSlash(ra)]
	})
	var table strings.Builder
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&table, "%6d  %s\n", count[filepath.ToSlash(rel)], filepath.ToSlash(rel))
	}
	t.Logf("docs: %d words (at most %d; the v1.0 goal is %d); the road %s: %d words (at most %d; goal %d)\n%s",
		total, maxDocs, docsGoal, strings.Join(road, " → "), roadWords, maxRoad, roadGoal, table.String())
	if roadWords > maxRoad {
		t.Errorf("the road %s is %d words, more than %d: say it shorter, or move the depth to a page off the road", strings.Join(road, " → "), roadWords, maxRoad)
	}
	if total > maxDocs {
		t.Errorf("README and docs/ are %d words, more than %d: say it shorter, or move long tables to results/\n%s", total, maxDocs, table.String())
	}
}
