// Package tsbs generates the "cpu-only" DevOps workload of the Time Series
// Benchmark Suite (TSBS), written from its public description: a fleet of
// hosts, each with ten tags (hostname, region, datacenter, rack, os, arch,
// team, service, service_version, service_environment), reporting ten CPU
// usage metrics every interval (10 s by default) from 2016-01-01T00:00:00Z.
// Each metric is a random walk with standard normal steps, clamped to
// [0, 100], started uniformly in [0, 100); TSBS emits the walk's value as a
// whole number, and so does this generator unless Precise is set.
//
// Output is deterministic for a given seed: every host draws its tags and
// walks from its own random stream, so the values of a (host, time) point do
// not depend on the order the points are produced in. Records come in
// (hostname, time) order — the sort order a time-series table keeps — or,
// with TimeMajor, in TSBS's own order (every host at one time, then the next
// time).
package tsbs

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Tags are the tag columns in schema order; hostname identifies a host.
var Tags = []string{"hostname", "region", "datacenter", "rack", "os", "arch",
	"team", "service", "service_version", "service_environment"}

// Metrics are the measurement columns in schema order.
var Metrics = []string{"usage_user", "usage_system", "usage_idle", "usage_nice",
	"usage_iowait", "usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice"}

// TimeColumn is the name of the time column.
const TimeColumn = "time"

// Start is TSBS's default first timestamp.
var Start = time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)

// regions lists the AWS-style regions TSBS assigns, each with its
// datacenters.
var regions = []struct {
	name string
	dcs  []string
}{
	{"us-east-1", []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1e"}},
	{"us-west-1", []string{"us-west-1a", "us-west-1b"}},
	{"us-west-2", []string{"us-west-2a", "us-west-2b", "us-west-2c"}},
	{"eu-west-1", []string{"eu-west-1a", "eu-west-1b", "eu-west-1c"}},
	{"eu-central-1", []string{"eu-central-1a", "eu-central-1b"}},
	{"ap-southeast-1", []string{"ap-southeast-1a", "ap-southeast-1b"}},
	{"ap-southeast-2", []string{"ap-southeast-2a", "ap-southeast-2b"}},
	{"ap-northeast-1", []string{"ap-northeast-1a", "ap-northeast-1c"}},
	{"sa-east-1", []string{"sa-east-1a", "sa-east-1b", "sa-east-1c"}},
}

var (
	oses  = []string{"Ubuntu16.10", "Ubuntu16.04LTS", "Ubuntu15.10"}
	archs = []string{"x64", "x86"}
	teams = []string{"SF", "NYC", "LON", "CHI"}
	envs  = []string{"production", "staging", "test"}
)

// Options describe the data set; zero fields take the defaults.
type Options struct {
	Hosts    int           // default 100
	Start    time.Time     // default Start
	Duration time.Duration // default 24 h
	Interval time.Duration // default 10 s
	Seed     uint64
	// Precision is the time column's unit: time.Second, Millisecond,
	// Microsecond (the default) or Nanosecond.
	Precision time.Duration
	// BatchRows bounds the rows of one record (default 65,536).
	BatchRows int
	// TimeMajor emits every host at one time before the next time (TSBS's
	// own order) instead of (hostname, time) order.
	TimeMajor bool
	// Precise keeps the walks' full float64 values instead of the whole
	// numbers TSBS emits.
	Precise bool
}

// MaxHosts bounds Options.Hosts: the generator keeps a slot per host (its
// place in key order, or its walk), so a count far past any benchmark's
// (TSBS runs up to about a million) is refused rather than allocated.
const MaxHosts = 10_000_000

func (o Options) withDefaults() Options {
	if o.Hosts <= 0 {
		o.Hosts = 100
	}
	if o.Start.IsZero() {
		o.Start = Start
	}
	if o.Duration <= 0 {
		o.Duration = 24 * time.Hour
	}
	if o.Interval <= 0 {
		o.Interval = 10 * time.Second
	}
	if o.Precision <= 0 {
		o.Precision = time.Microsecond
	}
	if o.BatchRows <= 0 {
		o.BatchRows = 64 << 10
	}
	return o
}

// Schema returns the schema of the generated records for a time unit:
// ten string tags, the time column, ten float64 metrics.
func Schema(unit arrow.TimeUnit) *arrow.Schema {
	var fs []arrow.Field
	for _, t := range Tags {
		fs = append(fs, arrow.Field{Name: t, Type: arrow.BinaryTypes.String})
	}
	fs = append(fs, arrow.Field{Name: TimeColumn, Type: &arrow.TimestampType{Unit: unit}})
	for _, m := range Metrics {
		fs = append(fs, arrow.Field{Name: m, Type: arrow.PrimitiveTypes.Float64})
	}
	return arrow.NewSchema(fs, nil)
}

// host is one host's tags and walk state.
type host struct {
	tags [10]string
	rng  *rand.Rand
	walk [10]float64
}

func newHost(seed uint64, i int) *host {
	r := rand.New(rand.NewPCG(seed, 0x5eed0000+uint64(i)))
	h := &host{rng: rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, uint64(i)))}
	reg := regions[r.IntN(len(regions))]
	h.tags = [10]string{
		"host_" + strconv.Itoa(i),
		reg.name,
		reg.dcs[r.IntN(len(reg.dcs))],
		strconv.Itoa(r.IntN(100)),
		oses[r.IntN(len(oses))],
		archs[r.IntN(len(archs))],
		teams[r.IntN(len(teams))],
		strconv.Itoa(r.IntN(20)),
		strconv.Itoa(r.IntN(2)),
		envs[r.IntN(len(envs))],
	}
	for m := range h.walk {
		h.walk[m] = h.rng.Float64() * 100
	}
	return h
}

// advance moves every walk one step and returns the values to emit.
func (h *host) advance(out *[10]float64, precise bool) {
	for m := range h.walk {
		v := h.walk[m] + h.rng.NormFloat64()
		v = math.Max(0, math.Min(100, v))
		h.walk[m] = v
		if !precise {
			v = math.Trunc(v)
		}
		out[m] = v
	}
}

// Generator produces the records of one data set.
type Generator struct {
	opts   Options
	sch    *arrow.Schema
	ticks  int
	step   int64 // interval in the time unit
	start  int64
	hosts  []*host // TimeMajor: every host; otherwise the current one
	order  []int   // host numbers in hostname order ("host_10" before "host_9")
	h, t   int     // next (host position, tick)
	closed bool
}

// New returns a generator for opts.
func New(opts Options) (*Generator, error) {
	opts = opts.withDefaults()
	if opts.Hosts > MaxHosts {
		return nil, fmt.Errorf("tsbs: %d hosts: at most %d", opts.Hosts, MaxHosts)
	}
	unit, ok := map[time.Duration]arrow.TimeUnit{time.Second: arrow.Second, time.Millisecond: arrow.Millisecond,
		time.Microsecond: arrow.Microsecond, time.Nanosecond: arrow.Nanosecond}[opts.Precision]
	if !ok {
		return nil, fmt.Errorf("tsbs: precision %v is not a second, millisecond, microsecond or nanosecond", opts.Precision)
	}
	per := opts.Precision
	if opts.Interval%per != 0 {
		return nil, fmt.Errorf("tsbs: interval %v is not a whole number of %v", opts.Interval, per)
	}
	g := &Generator{opts: opts, sch: Schema(unit), ticks: int(opts.Duration / opts.Interval),
		step: int64(opts.Interval / per), start: opts.Start.UnixNano() / int64(per)}
	if opts.TimeMajor {
		for i := 0; i < opts.Hosts; i++ {
			g.hosts = append(g.hosts, newHost(opts.Seed, i))
		}
	} else {
		g.order = make([]int, opts.Hosts)
		for i := range g.order {
			g.order[i] = i
		}
		sort.Slice(g.order, func(a, b int) bool {
			return "host_"+strconv.Itoa(g.order[a]) < "host_"+strconv.Itoa(g.order[b])
		})
	}
	return g, nil
}

// Schema returns the records' schema.
func (g *Generator) Schema() *arrow.Schema { return g.sch }

// Rows returns the total number of rows.
func (g *Generator) Rows() int64 { return int64(g.opts.Hosts) * int64(g.ticks) }

// Next returns the next record, or io.EOF after the last.
func (g *Generator) Next() (arrow.Record, error) {
	if g.opts.TimeMajor {
		if g.t >= g.ticks {
			return nil, io.EOF
		}
	} else if g.h >= g.opts.Hosts {
		return nil, io.EOF
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, g.sch)
	defer b.Release()
	tags := make([]*array.StringBuilder, len(Tags))
	for i := range tags {
		tags[i] = b.Field(i).(*array.StringBuilder)
	}
	ts := b.Field(len(Tags)).(*array.TimestampBuilder)
	ms := make([]*array.Float64Builder, len(Metrics))
	for i := range ms {
		ms[i] = b.Field(len(Tags) + 1 + i).(*array.Float64Builder)
	}
	var vals [10]float64
	emit := func(h *host, tick int) {
		for i, t := range h.tags {
			tags[i].Append(t)
		}
		ts.Append(arrow.Timestamp(g.start + int64(tick)*g.step))
		h.advance(&vals, g.opts.Precise)
		for i, v := range vals {
			ms[i].Append(v)
		}
	}
	n := 0
	for n < g.opts.BatchRows {
		if g.opts.TimeMajor {
			if g.t >= g.ticks {
				break
			}
			emit(g.hosts[g.h], g.t)
			if g.h++; g.h == g.opts.Hosts {
				g.h, g.t = 0, g.t+1
			}
		} else {
			if g.h >= g.opts.Hosts {
				break
			}
			if len(g.hosts) == 0 {
				g.hosts = append(g.hosts, newHost(g.opts.Seed, g.order[g.h]))
			}
			emit(g.hosts[0], g.t)
			if g.t++; g.t == g.ticks {
				g.h, g.t, g.hosts = g.h+1, 0, g.hosts[:0]
			}
		}
		n++
	}
	return b.NewRecord(), nil
}
