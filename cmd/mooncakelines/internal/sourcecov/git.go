package sourcecov

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// File is one source file at a tag.
type File struct {
	Path string
	Src  string
}

// ReadTag reads the counted files (Counted) of Mooncake at tag (a tag or a
// commit) from a git directory (a clone, a bare repository or a mirror),
// in `git ls-tree` order: `git ls-tree` lists them, one `git cat-file
// --batch` reads them all.
func ReadTag(ctx context.Context, gitDir, tag string) ([]File, error) {
	out, err := git(ctx, gitDir, nil, "ls-tree", "-r", "-z", "--name-only", tag)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" && Counted(p) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s at %s has none of the surveyed files (is it Mooncake's repository?)", gitDir, tag)
	}
	var req strings.Builder
	for _, p := range paths {
		req.WriteString(tag + ":" + p + "\n")
	}
	out, err = git(ctx, gitDir, strings.NewReader(req.String()), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	blobs, err := parseBatch(out, len(paths))
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch in %s at %s: %w", gitDir, tag, err)
	}
	files := make([]File, len(paths))
	for i, p := range paths {
		// As the survey read them (Python, errors="replace").
		files[i] = File{Path: p, Src: strings.ToValidUTF8(string(blobs[i]), "\uFFFD")}
	}
	return files, nil
}

// parseBatch splits `git cat-file --batch` output ("<oid> <type> <size>\n
// <contents>\n" per object) into n contents.
func parseBatch(out []byte, n int) ([][]byte, error) {
	r := bufio.NewReader(bytes.NewReader(out))
	blobs := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("object %d: header: %w", i+1, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, fmt.Errorf("object %d: %q", i+1, strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("object %d: size in %q: %w", i+1, strings.TrimSpace(header), err)
		}
		blob := make([]byte, size+1) // and its newline
		if _, err := io.ReadFull(r, blob); err != nil {
			return nil, fmt.Errorf("object %d (%d bytes): %w", i+1, size, err)
		}
		blobs = append(blobs, blob[:size])
	}
	return blobs, nil
}

func git(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("git %s in %s: %w: %s", args[0], dir, err, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("git %s in %s: %w", args[0], dir, err)
	}
	return out, nil
}
