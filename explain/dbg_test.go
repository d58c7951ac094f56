package explain
import ("testing";"os";"fmt";"context";"strings";"github.com/mooncake-faultlab/faultlab/fieldlogs";"github.com/mooncake-faultlab/faultlab/scenarios";"github.com/mooncake-faultlab/faultlab/sim")
func TestDbgDraft(t *testing.T){
  cs,_ := fieldlogs.Load()
  cat,_ := scenarios.Catalog()
  fp := Fingerprint(context.Background(), cat, sim.New(), "")
  for _, c := range cs { if !strings.Contains(os.Getenv("CASE"), c.ID) || c.Heldout || c.Batch >= 2 && c.Batch <= 4 {continue}
    dr := DraftFromLog(context.Background(), cat, fp, sim.New(), c.Log, DraftOptions{Name: "x"})
    fmt.Println("==", c.ID, dr.Based, dr.Version); for _, m := range dr.Missing { fmt.Println("M", m[:min(len(m),300)]) }
  }
}
