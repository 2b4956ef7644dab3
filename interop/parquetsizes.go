package interop

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// ParquetSizes is where the bytes of a Parquet file are: per top-level
// column, the compressed size of its column chunks (page headers
// included, as the column chunk metadata counts them), summed over row
// groups and over the leaf columns a nested column shreds into.
type ParquetSizes struct {
	Rows    int64
	File    int64            // the whole file, footer included
	Columns map[string]int64 // top-level column name → column chunk bytes
	Order   []string         // top-level columns in schema order
}

// ReadParquetSizes reads the footer of a Parquet file and sums its column
// chunk sizes by top-level column.
func ReadParquetSizes(path string) (_ *ParquetSizes, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("interop: %w", err)
	}
	defer func() {
		// arrow-go panics on some malformed footers; report it as an error.
		if r := recover(); r != nil {
			err = fmt.Errorf("interop: %s: malformed parquet file: %v", path, r)
		}
	}()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	defer pf.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	md := pf.MetaData()
	out := &ParquetSizes{Rows: md.NumRows, File: st.Size(), Columns: map[string]int64{}}
	sch := md.Schema
	seen := map[string]bool{}
	for i := 0; i < sch.NumColumns(); i++ {
		top := topLevel(sch.Column(i).ColumnPath())
		if !seen[top] {
			seen[top] = true
			out.Order = append(out.Order, top)
		}
	}
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		for i := 0; i < rg.NumColumns(); i++ {
			cc, err := rg.ColumnChunk(i)
			if err != nil {
				return nil, fmt.Errorf("interop: %s: row group %d, column %d: %w", path, g, i, err)
			}
			out.Columns[topLevel(sch.Column(i).ColumnPath())] += cc.TotalCompressedSize()
		}
	}
	return out, nil
}

// topLevel returns the first element of a Parquet column path (names may
// themselves hold dots, so the path is not split from its dotted form).
func topLevel(path []string) string {
	if len(path) == 0 {
		return ""
	}
	return path[0]
}
