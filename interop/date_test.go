package interop

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// parseDate32Ref is how arrow-go's CSV reader reads a date.
func parseDate32Ref(s string) (arrow.Date32, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return 0, err
	}
	return arrow.Date32FromTime(t), nil
}

func checkDate(t *testing.T, s string) {
	t.Helper()
	got, err := parseDate32(s)
	want, wantErr := parseDate32Ref(s)
	if (err != nil) != (wantErr != nil) || got != want {
		t.Errorf("%q: %v, %v; time.Parse gives %v, %v", s, got, err, want, wantErr)
	}
}

// TestParseDate32 checks the date fast path against time.Parse, which
// arrow-go's reader uses: every day of every month (and the days and
// months that do not exist) over leap and century years across the
// whole four-digit range, and text that is no such date.
func TestParseDate32(t *testing.T) {
	years := []int{0, 1, 4, 99, 100, 400, 1582, 1600, 1899, 1900, 1969, 1970, 1971, 1999, 2000, 2023, 2024, 2100, 2400, 9999}
	for y := 3; y < 10000; y += 97 {
		years = append(years, y)
	}
	for _, y := range years {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				checkDate(t, fmt.Sprintf("%04d-%02d-%02d", y, m, d))
			}
		}
	}
	for _, s := range []string{"", "2024-1-05", "2024-01-5", " 2024-01-05", "2024-01-05 ", "+202-01-01", "-202-01-01",
		"abcd-ef-gh", "2024/01/05", "2024-01-05T00:00:00", "20240105", "2024-0a-05", "2024-02-29", "2023-02-29", "１２３４-01-01"} {
		checkDate(t, s)
	}
}

// FuzzParseDate32 checks the date fast path against time.Parse on any text.
func FuzzParseDate32(f *testing.F) {
	for _, s := range []string{"2024-02-29", "1970-01-01", "0000-03-01", "2024-13-01", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkDate(t, s) })
}
