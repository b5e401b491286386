package main

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// gitCommit is `git rev-parse --short HEAD`, or "unknown" (no git, no
// commit yet). It only reads.
func gitCommit() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// commandLine renders argv as a shell command a reader can paste from the
// repository's root. Under `go run` argv[0] is a temporary binary, so it is
// shown as the binary `make tools` builds.
func commandLine(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	head := argv[0]
	if strings.Contains(head, "go-build") || strings.HasSuffix(head, "/exe/loadtest") {
		head = "bin/loadtest"
	}
	parts := []string{head}
	for _, a := range argv[1:] {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// title names a run in folders and headings: "steps (nearby)".
func (s *Summary) title() string {
	if s.StepsOn != "" {
		return s.Scenario + " (" + s.StepsOn + ")"
	}
	return s.Scenario
}

func (s *Summary) slug() string {
	if s.StepsOn != "" {
		return s.Scenario + "-" + s.StepsOn
	}
	return s.Scenario
}
