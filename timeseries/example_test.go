package timeseries_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"strata/timeseries"
	"strata/tsbs"
)

// writeCPU writes the TSBS cpu-only table of 10 hosts over a day (what
// `strata gen tsbs --hosts 10 --duration 24h` and `strata ts import`
// make) and returns its path.
func writeCPU() string {
	g, err := tsbs.New(tsbs.Options{Hosts: 10, Duration: 24 * time.Hour, Seed: 7})
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "ts-example")
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, "cpu.strata")
	out, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	w, err := timeseries.NewWriter(out, g.Schema(), timeseries.Model{Keys: tsbs.Tags, Time: tsbs.TimeColumn}, nil)
	if err != nil {
		panic(err)
	}
	for {
		rec, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		if err := w.Write(rec); err != nil {
			panic(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	if err := out.Close(); err != nil {
		panic(err)
	}
	return path
}

// One host over one hour, two columns: the series index finds the host's
// units, the time filter settles blocks from their headers, and only the
// surviving rows of usage_user are decoded. Then 64 random windows of 256
// consecutive rows, as a training loop draws them each epoch.
func ExampleFile_Query() {
	path := writeCPU()
	defer os.RemoveAll(filepath.Dir(path))
	ctx := context.Background()
	from := tsbs.Start.Add(6 * time.Hour).UnixMicro() // the table's time is in microseconds
	to := from + time.Hour.Microseconds()

	f, err := timeseries.Open(path, nil)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	rows, err := f.Query(ctx, timeseries.QueryOptions{
		Series:  timeseries.Selector{"hostname": "host_7"},
		Time:    &timeseries.TimeRange{From: from, To: to}, // [From, To) in the time column's unit
		Columns: []string{"time", "usage_user"},
	})
	if err != nil {
		panic(err)
	}
	n := int64(0)
	for {
		rec, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	rows.Close()
	fmt.Println("rows in the hour:", n)

	for e := 0; e < 2; e++ {
		recs, st, err := f.Sample(ctx, timeseries.SampleOptions{Windows: 64, Length: 256, Seed: 1, Epoch: e})
		if err != nil {
			panic(err)
		}
		fmt.Println("epoch", e, "windows:", len(recs), "amplification below 2:", st.Amplification() < 2) // values decoded / values returned
		for _, r := range recs {
			r.Release()
		}
	}
	// Output:
	// rows in the hour: 360
	// epoch 0 windows: 64 amplification below 2: true
	// epoch 1 windows: 64 amplification below 2: true
}
