package release

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// Built is a file-system module proxy BuildProxy wrote: the layout the go
// command reads with GOPROXY=file://Dir (for each module,
// <escaped path>/@v/list, VERSION.info, VERSION.mod and VERSION.zip).
type Built struct {
	// Dir is the proxy's directory.
	Dir string
	// Version is the one version it serves.
	Version string
	// Modules are the modules it serves: the released ones.
	Modules Workspace
}

// File is the path of one of module m's files in the proxy, by its
// extension: "zip", "mod" or "info".
func (b Built) File(m Module, ext string) string {
	esc, err := module.EscapePath(m.Path)
	if err != nil {
		panic(err) // BuildProxy checked every path
	}
	return filepath.Join(b.Dir, filepath.FromSlash(esc), "@v", b.Version+"."+ext)
}

// BuildProxy writes into out a module proxy serving every released module
// of src's tree as src.Version. Each module's zip is made with
// golang.org/x/mod/zip from the files under its directory (a nested
// module's directory excluded), as the go command makes one from git,
// except that nothing is added: a module without a LICENSE of its own
// has none in its zip. The working tree's go.mod files are stamped so
// that they require their siblings at src.Version (Bump); a commit's must
// already.
func BuildProxy(root string, src Source, out string) (Built, error) {
	if err := module.Check("example.com/m", src.Version); err != nil {
		return Built{}, err
	}
	var t tree
	var err error
	var when time.Time
	if src.Commit == "" {
		t, err = workingTree(root)
		if err == nil {
			when, err = commitTime(root, "HEAD")
		}
	} else {
		tmp, terr := os.MkdirTemp("", "idemq-proxy-tree-")
		if terr != nil {
			return Built{}, terr
		}
		defer os.RemoveAll(tmp)
		t, err = commitTree(root, src.Commit, tmp)
		if err == nil {
			when, err = commitTime(root, src.Commit)
		}
	}
	if err != nil {
		return Built{}, err
	}
	ws, err := ReadWorkspace(ReadDir(t.dir))
	if err != nil {
		return Built{}, err
	}
	b := Built{Dir: out, Version: src.Version, Modules: ws.Released()}
	for _, m := range b.Modules {
		if err := module.CheckPath(m.Path); err != nil {
			return Built{}, err
		}
		gomod, err := os.ReadFile(filepath.Join(t.dir, filepath.FromSlash(m.File("go.mod"))))
		if err != nil {
			return Built{}, err
		}
		if src.Commit == "" {
			if gomod, _, err = Bump(m.File("go.mod"), gomod, ws.Paths(), src.Version); err != nil {
				return Built{}, err
			}
		} else if err := released(m.File("go.mod"), gomod, ws, src.Version); err != nil {
			return Built{}, fmt.Errorf("commit %.12s: %w", src.Commit, err)
		}
		if err := b.write(m, t, gomod, when); err != nil {
			return Built{}, fmt.Errorf("%s@%s: %w", m.Path, src.Version, err)
		}
	}
	return b, nil
}

// released checks that a committed go.mod is a release's: it requires its
// siblings at version, with no replace or exclude directive.
func released(name string, gomod []byte, ws Workspace, version string) error {
	if _, _, err := Bump(name, gomod, nil, version); err != nil {
		return err
	}
	reqs, err := Requirements(name, gomod, ws.Paths())
	if err != nil {
		return err
	}
	for p, v := range reqs {
		if v != version {
			return fmt.Errorf("%s requires %s@%s, not %s: not a release make release made", name, p, v, version)
		}
	}
	return nil
}

// write writes module m's files into the proxy.
func (b Built) write(m Module, t tree, gomod []byte, when time.Time) error {
	var files []modzip.File
	prefix := ""
	if m.Dir != "." {
		prefix = m.Dir + "/"
	}
	for _, p := range t.files {
		rel, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		f := treeFile{rel: rel, abs: filepath.Join(t.dir, filepath.FromSlash(p))}
		if rel == "go.mod" {
			f.data = gomod
		}
		files = append(files, f)
	}
	dir := filepath.Dir(b.File(m, "zip"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, module.Version{Path: m.Path, Version: b.Version}, files); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{b.Version, when.UTC()})
	if err != nil {
		return err
	}
	for ext, data := range map[string][]byte{"zip": zip.Bytes(), "mod": gomod, "info": info} {
		if err := os.WriteFile(b.File(m, ext), data, 0o644); err != nil {
			return err
		}
	}
	list := filepath.Join(dir, "list")
	old, err := os.ReadFile(list)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	versions := strings.Fields(string(old))
	if !slices.Contains(versions, b.Version) {
		versions = append(versions, b.Version)
	}
	return os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}

// tree is the files of a source: regular files, by their slash-separated
// path relative to dir.
type tree struct {
	dir   string
	files []string
}

// workingTree lists the files git would commit in the working tree at
// root: tracked ones still there, and untracked ones not ignored.
func workingTree(root string) (tree, error) {
	out, err := gitBytes(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return tree{}, err
	}
	t := tree{dir: root}
	seen := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			return tree{}, err
		}
		if info.Mode().IsRegular() {
			t.files = append(t.files, p)
		}
	}
	slices.Sort(t.files)
	return t, nil
}

// commitTree writes the files of commit into dir with git archive and
// lists them.
func commitTree(root, commit, dir string) (tree, error) {
	out, err := gitBytes(root, "archive", "--format=tar", commit)
	if err != nil {
		return tree{}, err
	}
	t := tree{dir: dir}
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return tree{}, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		p := path.Clean(h.Name)
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return tree{}, fmt.Errorf("git archive %s: %q is outside the tree", commit, h.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return tree{}, err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return tree{}, err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return tree{}, err
		}
		t.files = append(t.files, p)
	}
	slices.Sort(t.files)
	return t, nil
}

// commitTime is rev's committer date.
func commitTime(root, rev string) (time.Time, error) {
	out, err := git(root, "log", "-1", "--format=%cI", rev)
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339, out)
}

// treeFile is a file of a module zip: on disk, or data in its place.
type treeFile struct {
	rel, abs string
	data     []byte // when not nil, the file's content
}

func (f treeFile) Path() string { return f.rel }

func (f treeFile) Lstat() (os.FileInfo, error) {
	info, err := os.Lstat(f.abs)
	if err != nil || f.data == nil {
		return info, err
	}
	return sizedInfo{info, int64(len(f.data))}, nil
}

func (f treeFile) Open() (io.ReadCloser, error) {
	if f.data != nil {
		return io.NopCloser(bytes.NewReader(f.data)), nil
	}
	return os.Open(f.abs)
}

// sizedInfo is a file's information with another size.
type sizedInfo struct {
	os.FileInfo
	size int64
}

func (s sizedInfo) Size() int64 { return s.size }
