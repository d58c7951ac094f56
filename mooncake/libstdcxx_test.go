package mooncake

import "testing"

// The measured wheels against RHEL 9's libstdc++ (GLIBCXX_3.4.29): up to
// 0.3.11.post1 the programs and the store module need GLIBCXX_3.4.30, the
// engine module from 0.3.8; from 0.3.12.post1 nothing does.
func TestGLIBCXXMissing(t *testing.T) {
	for _, c := range []struct{ version, elf, level, want string }{
		{"0.3.9", ELFMaster, LibstdcxxRHEL9, "GLIBCXX_3.4.30"},
		{"0.3.9", ELFStore, LibstdcxxRHEL9, "GLIBCXX_3.4.30"},
		{"0.3.9", ELFEngine, LibstdcxxRHEL9, "GLIBCXX_3.4.30"},
		{"0.3.7.post2", ELFEngine, LibstdcxxRHEL9, ""},
		{"0.3.11.post1", ELFClient, LibstdcxxRHEL9, "GLIBCXX_3.4.30"},
		{"0.3.12.post1", ELFMaster, LibstdcxxRHEL9, ""},
		{"0.3.14", ELFStore, LibstdcxxRHEL9, ""},
		{"0.3.9", ELFMaster, "", ""},
	} {
		p, err := ProfileFor(c.version)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.GLIBCXXMissing(c.elf, c.level); got != c.want {
			t.Errorf("%s %s at %q: %q, want %q", c.version, c.elf, c.level, got, c.want)
		}
	}
	if err := LibstdcxxMeasured("0.3.9", "3.4.28"); err == nil {
		t.Error("3.4.28 measured?")
	}
	if err := LibstdcxxMeasured("0.3.5", LibstdcxxRHEL9); err == nil {
		t.Error("0.3.5 measured?")
	}
	if got, want := VersionNotFound("GLIBCXX_3.4.30", "/x/store.so"), "/lib64/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /x/store.so)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
