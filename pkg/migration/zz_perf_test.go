package migration
import ("os/exec";"testing";"time";"context";"os";"strconv";"sync/atomic";"github.com/ankusa/ankusa-store/pkg/rocks")
func envInt(k string, d int) int { if v, err := strconv.Atoi(os.Getenv(k)); err == nil { return v }; return d }
func TestPerf(t *testing.T){
  src := os.Getenv("PERF_SRC")
  if src == "" { t.Skip() }
  dir := src+"-run"; os.RemoveAll(dir); os.MkdirAll(dir, 0o755); exec.Command("sh","-c","cp "+src+"/* "+dir+"/").Run()
  tune := rocks.Tuning{WriteBufferSize: uint64(envInt("WBS", 16))<<20, MaxWriteBufferNumber: envInt("WBN", 2)}
  st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite, Tune: tune})
  if err != nil { t.Fatal(err) }
  defer st.Close()
  prepare(st, 1_796_032_800_000)
  state, _ := ReadState(st)
  ords, _ := newOrdinals(st, state.NextOrd, 1<<16)
  var fetchT, buildT, writeT, waitT atomic.Int64
  var ops int
  sc := newScanner(st, state.Cursor, 500, envInt("CHUNK", 16))
  bld := newBuilder(ords, state.StartedAt)
  p := &pipeline{scan: sc, fetch: func(s *step) error { t0:=time.Now(); e:= fetch(st, s); fetchT.Add(int64(time.Since(t0))); return e}, build: bld, workers: envInt("WORKERS", 2), ahead: envInt("AHEAD", 6)}
  t0 := time.Now()
  n := 0
  last := time.Now()
  err = p.run(context.Background(), func(s *step) error { t1 := time.Now(); waitT.Add(int64(t1.Sub(last))); e := st.Write(s.batch, os.Getenv("NOSYNC") == ""); writeT.Add(int64(time.Since(t1))); last = time.Now(); ops += s.batch.Count(); n++; return e })
  d := time.Since(t0)
  t.Logf("total %v steps %d rows/s %.0f | fetch %v build %v write %v writer-waiting %v ops %d err %v", d, n, float64(n*500)/d.Seconds(), time.Duration(fetchT.Load()), time.Duration(buildT.Load()), time.Duration(writeT.Load()), time.Duration(waitT.Load()), ops, err)
}
