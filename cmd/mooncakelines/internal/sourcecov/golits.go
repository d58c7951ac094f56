package sourcecov

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ModelDirs are the directories of faultlab whose Go literals are what the
// model can print: the models, the simulator, the fake engine's servers and
// mooncake/ (knob warnings such as "Invalid port range" live there).
var ModelDirs = []string{"models", "sim", "fakeengine", "mooncake"}

// GoLiterals returns the string literals of one Go file (comments are not
// read), unquoted, without the blank ones.
func GoLiterals(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	var scanErr error
	s.Init(file, src, func(pos token.Position, msg string) {
		if scanErr == nil {
			scanErr = fmt.Errorf("%s: %s", pos, msg)
		}
	}, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.STRING {
			continue
		}
		v, err := strconv.Unquote(lit)
		if err != nil || strings.TrimSpace(v) == "" {
			continue
		}
		out = append(out, v)
	}
	return out, scanErr
}

// ModelLiterals returns the literals of the non-test Go files under
// root's ModelDirs (testdata skipped) and how many files it read.
func ModelLiterals(root string) (lits []string, files int, err error) {
	for _, d := range ModelDirs {
		dir := filepath.Join(root, d)
		if _, err := os.Stat(dir); err != nil {
			return nil, 0, fmt.Errorf("faultlab's %s/ (is %s faultlab's repository root?): %w", d, root, err)
		}
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if e.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			l, err := GoLiterals(path, src)
			if err != nil {
				return fmt.Errorf("scan %s: %w", path, err)
			}
			lits = append(lits, l...)
			files++
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("read the model's literals: %w", err)
		}
	}
	return lits, files, nil
}
