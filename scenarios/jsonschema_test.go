package scenarios

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// The committed schema is the generated one: regenerate with go generate
// ./scenarios after changing the scenario types.
func TestSchemaCommitted(t *testing.T) {
	gen, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gen, committed) {
		t.Fatal("scenarios/scenario.schema.json is stale: run go generate ./scenarios")
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	gen, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(gen))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// yamlToJSON decodes YAML into the values a JSON validator sees.
func yamlToJSON(t *testing.T, b []byte) any {
	t.Helper()
	var x any
	if err := yaml.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(normalizeYAML(x))
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every catalog file validates against the schema.
func TestCatalogValidatesAgainstSchema(t *testing.T) {
	s := compileSchema(t)
	n := 0
	err := fs.WalkDir(catalogFS, "catalog", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(catalogFS, p)
		if err != nil {
			return err
		}
		n++
		if err := s.Validate(yamlToJSON(t, b)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("only %d catalog files", n)
	}
}

// The schema rejects what the loader rejects for the same reason.
func TestSchemaRejects(t *testing.T) {
	s := compileSchema(t)
	for _, y := range []string{
		"name: t/x\nsteps: [{init: tp0}]\nexpcet: {ok: true}\n",                                                                  // unknown key
		"name: t/x\nsteps: [{boot: tp0}]\nexpect: {ok: true}\n",                                                                  // unknown action
		"name: t/x\nsteps: [{init: tp0}]\ntopology: {metadata: etcd}\n",                                                          // enum
		"name: t/x\nsteps: [{sleep: 30}]\nexpect: {ok: true}\n",                                                                  // duration without unit
		"name: t/x\nsteps: [{init: tp0}]\nfaults: [{at: 0s, kind: boom}]\n",                                                      // fault kind
		"name: t/x\nsteps: [{init: tp0}]\nexpect: {ok: true}\nfaults: [{at: 0s, kind: master-down, mode: refus}]\n",              // mode
		"name: t/x\nsteps: [{init: tp0}]\nexpect: {ok: true}\nfaults: [{at: 0s, kind: process, target: master, action: kill}]\n", // action
	} {
		if err := s.Validate(yamlToJSON(t, []byte(y))); err == nil {
			t.Errorf("schema accepts %q", strings.TrimSpace(y))
		}
		if _, err := Parse("x.yaml", []byte(y)); err == nil {
			t.Errorf("loader accepts %q", y)
		}
	}
}
