package explore

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"gopkg.in/yaml.v3"
)

// Generation is a pure function of the seed, and the YAML written to the
// corpus (or by --emit) is the same scenario the explorer ran.
func TestGenerateParsesAndIsPure(t *testing.T) {
	for seed := uint64(0); seed < 2000; seed++ {
		for _, wall := range []bool{false, true} {
			d := Generate(seed, GenOptions{Wall: wall})
			b := d.Canonical()
			if _, err := d.Scenario(); err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, b)
			}
			if again := Generate(seed, GenOptions{Wall: wall}).Canonical(); !bytes.Equal(b, again) {
				t.Fatalf("seed %d: not a pure function of the seed", seed)
			}
			y := d.Marshal()
			if _, err := scenarios.Parse("seed.yaml", y); err != nil {
				t.Fatalf("seed %d: YAML does not load: %v\n%s", seed, err, y)
			}
			var back Doc
			if err := yaml.Unmarshal(y, &back); err != nil {
				t.Fatal(err)
			}
			bj, _ := json.Marshal(&back)
			if !bytes.Equal(bj, b) {
				t.Fatalf("seed %d: YAML round trip differs:\n%s\n%s", seed, bj, b)
			}
		}
	}
}

// The scenario explore runs (built directly, no YAML) is the one the
// loader makes of the emitted YAML, field for field (positions aside).
func TestBuildMatchesLoader(t *testing.T) {
	for seed := uint64(0); seed < 3000; seed++ {
		for _, wall := range []bool{false, true} {
			d := Generate(seed, GenOptions{Wall: wall})
			built, err := d.Scenario()
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			loaded, err := scenarios.Parse(d.Name+".yaml", d.Marshal())
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			zeroPos(reflect.ValueOf(loaded).Elem())
			if !reflect.DeepEqual(built, loaded) {
				bj, _ := json.MarshalIndent(built, "", " ")
				lj, _ := json.MarshalIndent(loaded, "", " ")
				t.Fatalf("seed %d (wall %v): built and loaded scenarios differ:\nbuilt:  %s\nloaded: %s", seed, wall, bj, lj)
			}
		}
	}
}

// A doc build cannot convert (a corpus finding's codes) still loads, and an
// invalid one is refused with the loader's message.
func TestScenarioFallbackAndValidation(t *testing.T) {
	d := Generate(1, GenOptions{})
	d.Expect.Codes = map[string]any{"setup": []int{0}}
	sc, err := d.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Expect.Codes["setup"].Seq; !reflect.DeepEqual(got, []int{0}) {
		t.Fatalf("codes = %v, want [0]", got)
	}
	// A value type build does not convert: the loader's reading of it.
	d = Generate(1, GenOptions{})
	d.Config.ExtraConfig = map[string]any{"global_segment_size": uint32(16 << 20)}
	if sc, err = d.Scenario(); err != nil {
		t.Fatal(err)
	}
	if got := sc.Config.ExtraConfig["global_segment_size"]; got != int64(16<<20) {
		t.Fatalf("extra_config value = %#v, want int64(16777216)", got)
	}
	d = Generate(1, GenOptions{})
	d.Topology.Metadata = "zookeeper"
	_, err = d.Scenario()
	want := `explore/seed-1.yaml:0:0: topology.metadata: "zookeeper" is not one of P2PHANDSHAKE, http, master, etcd`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

var posType = reflect.TypeFor[scenarios.Pos]()

// zeroPos clears the loader's positions, which a built scenario has not.
func zeroPos(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			zeroPos(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			zeroPos(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			zeroPos(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if f.Type() == posType {
				f.Set(reflect.Zero(posType))
				continue
			}
			if f.CanSet() {
				zeroPos(f)
			}
		}
	}
}
