// Package suggest finds the names closest to a misspelt one, for error
// messages that tell a user what they probably meant.
package suggest

import (
	"fmt"
	"sort"
	"strings"
)

// Closest returns up to n candidates near name, nearest first: those within
// an edit distance of about a third of the name's length (at least 2), and
// those that contain name or are contained in it, ignoring case.
func Closest(name string, candidates []string, n int) []string {
	type scored struct {
		s string
		d int
	}
	lname := strings.ToLower(name)
	limit := max(2, len([]rune(name))/3)
	var out []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := distance(lname, lc)
		if d > limit && !(len(lname) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc))) {
			continue
		}
		out = append(out, scored{c, d})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].d < out[j].d })
	res := make([]string, 0, min(n, len(out)))
	for i := 0; i < len(out) && i < n; i++ {
		res = append(res, out[i].s)
	}
	return res
}

// Hint returns a parenthesised hint for an unknown name: the closest
// candidates, or the whole list when it is short and nothing is close.
func Hint(name string, candidates []string) string {
	if c := Closest(name, candidates, 3); len(c) > 0 {
		return fmt.Sprintf(" (did you mean %s?)", quoteList(c, " or "))
	}
	if len(candidates) > 0 && len(candidates) <= 12 {
		return fmt.Sprintf(" (the columns are %s)", quoteList(candidates, ", "))
	}
	return ""
}

func quoteList(s []string, sep string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, sep)
}

// distance is the Levenshtein distance between a and b, by runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
