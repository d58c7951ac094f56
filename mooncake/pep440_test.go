package mooncake

import "testing"

func TestPipConstraints(t *testing.T) {
	for _, tc := range []struct {
		c, v string
		want bool
	}{
		{">=0.3.9,<0.3.12", "0.3.9", true},
		{">=0.3.9,<0.3.12", "0.3.11.post1", true},
		{">=0.3.9,<0.3.12", "0.3.12", false},
		{">=0.3.9,<0.3.12", "0.3.8.post1", false},
		{"~=0.3.9", "0.3.13.post1", true},
		{"~=0.3.9", "0.3.8.post1", false},
		{"~=0.3.9", "0.4.0", false},
		{"!=0.3.10", "0.3.10", false},
		{"!=0.3.10", "0.3.10.post1", true},
		{"==0.3.*", "0.3.4", true},
		{"==0.3.*", "0.4.0", false},
		{"!=0.3.*", "0.3.4", false},
		{">0.3.9", "0.3.10", true},
		{">=0.3.9, <0.3.12, !=0.3.10", "0.3.10", false},
	} {
		got, err := Constraint(tc.c).Match(MustVersion(tc.v))
		if err != nil || got != tc.want {
			t.Errorf("%q matches %s: %v %v, want %v", tc.c, tc.v, got, err, tc.want)
		}
	}
	for _, bad := range []string{">=0.3.9,", "~=0.3", "==x.*", ">=0.3.9,<zz"} {
		if _, err := Constraint(bad).Match(MustVersion("0.3.9")); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
