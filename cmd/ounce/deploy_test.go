package main

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// readmeSettings is every variable named in the first cell of the README's configuration table.
func readmeSettings(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "| variable | default | meaning |\n")
	if !ok {
		t.Fatal("README has no configuration table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")
	var out []string
	for _, row := range strings.Split(table, "\n")[1:] {
		first := strings.Split(strings.Trim(row, "|"), "|")[0]
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

// TestEnvExampleHasEveryREADMESetting keeps deploy/.env.example and the README's table the
// same set of variables.
func TestEnvExampleHasEveryREADMESetting(t *testing.T) {
	b, err := os.ReadFile("../../deploy/.env.example")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^(?:# )?([A-Z][A-Z0-9_]+)=`)
	var example []string
	seen := map[string]bool{}
	for _, m := range line.FindAllStringSubmatch(string(b), -1) {
		if seen[m[1]] {
			t.Errorf(".env.example names %s twice", m[1])
		}
		seen[m[1]] = true
		example = append(example, m[1])
	}
	sort.Strings(example)
	readme := readmeSettings(t)
	if len(readme) < 30 {
		t.Fatalf("only %d variables read from the README table: %v", len(readme), readme)
	}
	if strings.Join(readme, " ") != strings.Join(example, " ") {
		t.Fatalf("README table and deploy/.env.example differ:\nREADME:  %v\nexample: %v", readme, example)
	}
}
