package sourcecov

import (
	"reflect"
	"testing"
)

func TestTable(t *testing.T) {
	const (
		master = "mooncake-store/src/master_service.cpp"
		oplog  = "mooncake-store/src/ha/oplog/oplog_manager.cpp"
		client = "mooncake-store/src/client_service.cpp"
	)
	st := func(area, file string, line int, text string, s Status) Measured {
		return Measured{Statement: Statement{File: file, Line: line, Area: area, Kind: "ERROR", Text: text}, Status: s}
	}
	ms := []Measured{
		st("master", master, 10, "Segment \x01 not found", Covered),
		st("master", master, 20, "Segment \x01 not found", Covered), // the same text twice: one text
		st("master", master, 30, "Failed to snapshot \x01", None),   // names something exotic: not core
		st("master-ha", oplog, 5, "lease lost \x01", Partial),       // an exotic file: not core in master-ha
		st("store-client", client, 7, "lease lost \x01", Partial),   // …but core in all: printed off it too
	}
	rows, lines := Table(ms)
	want := map[string]Row{
		"store-client": {Area: "store-client", Statements: 1, StmtPart: 1, Texts: 1, TextPartial: 1, Core: 1, CorePartial: 1},
		"master":       {Area: "master", Statements: 3, StmtCov: 2, StmtNone: 1, Texts: 2, TextCov: 1, Core: 1, CoreCov: 1},
		"master-ha":    {Area: "master-ha", Statements: 1, StmtPart: 1, Texts: 1, TextPartial: 1},
		"all":          {Area: "all", Statements: 5, StmtCov: 2, StmtPart: 2, StmtNone: 1, Texts: 3, TextCov: 1, TextPartial: 1, Core: 2, CoreCov: 1, CorePartial: 1},
	}
	if len(rows) != len(Areas)+1 {
		t.Fatalf("%d rows, want %d", len(rows), len(Areas)+1)
	}
	for _, r := range rows {
		w, ok := want[r.Area]
		if !ok {
			w = Row{Area: r.Area}
		}
		if r != w {
			t.Errorf("row %s = %+v, want %+v", r.Area, r, w)
		}
	}
	wantLines := []Line{
		{Area: "store-client", Text: "lease lost «»", Kind: "ERROR", Status: Partial, Core: true, Where: []string{client + ":7"}},
		{Area: "master", Text: "Segment «» not found", Kind: "ERROR", Status: Covered, Core: true, Where: []string{master + ":10", master + ":20"}},
		{Area: "master", Text: "Failed to snapshot «»", Kind: "ERROR", Status: None, Where: []string{master + ":30"}},
		{Area: "master-ha", Text: "lease lost «»", Kind: "ERROR", Status: Partial, Where: []string{oplog + ":5"}},
	}
	if !reflect.DeepEqual(lines, wantLines) {
		t.Errorf("lines:\n have %+v\n want %+v", lines, wantLines)
	}
}

func TestMeasure(t *testing.T) {
	m, err := NewModel([]string{"Segment %s not found"})
	if err != nil {
		t.Fatal(err)
	}
	files := []File{
		{Path: "mooncake-store/src/segment.cpp", Src: `
  LOG(ERROR) << "Segment " << name << " not found";
  CHECK(ok);
  LOG(WARNING) << "Segment " << name << " not mounted";
`},
		{Path: "mooncake-store/src/notcounted.cpp", Src: `LOG(ERROR) << "Segment " << name << " not found";`},
	}
	var have []Measured
	for _, s := range Measure(files, m) {
		s.Stmt = ""
		have = append(have, s)
	}
	// CHECK(ok) has no text: dropped. "Segment" matched in the second, 7 of 17 letters; the file
	// of no area is not read.
	want := []Measured{
		{Statement{File: "mooncake-store/src/segment.cpp", Line: 2, Area: "master", Kind: "ERROR", Text: "Segment \x01 not found"}, 1, Covered},
		{Statement{File: "mooncake-store/src/segment.cpp", Line: 4, Area: "master", Kind: "WARNING", Text: "Segment \x01 not mounted"}, 7.0 / 17, Partial},
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("Measure:\n have %+v\n want %+v", have, want)
	}
}
