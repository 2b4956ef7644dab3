package read

import "strata/filter"

// WhereForFile returns the filter where (e, its parse) as file f reads it
// in a table of several files read by column name, as ScanFiles reads it:
// where itself when f holds every column it names, else
// filter.AssumeNull's rewrite for the columns f lacks ("" when every row
// passes); none reports that no row of f can pass. Unlike WhereFor, which
// sees only an Arrow schema, it knows f's FlatMap keys: files written apart
// see different keys, and a key f's schema does not know is in none of its
// rows, so it is NULL there as a column f lacks (Lacks), rather than an
// unknown column that fails f's scan.
func WhereForFile(where string, e filter.Expr, f *File) (w string, none bool) {
	return whereForFile(where, e, f)
}

// Lacks reports whether f, one of the files of a table, lacks the column
// at filter path p, whose values are then NULL in all of f's rows: a
// top-level column f does not have, or a key of one of f's FlatMap columns
// that f's schema does not know. A reader of several files tells with it
// whether a filter's column is one that some file holds (a path every file
// lacks is an unknown column, not NULL everywhere) and whether files of
// the same columns need WhereForFile's rewrites, as their keys may differ.
func (f *File) Lacks(p string) bool { return f.lacks(p) }

// FileWheres returns the filter where (e, its parse) as each of files, read
// as one table, reads it (WhereForFile), with none[i] reporting that no row
// of file i can pass, when some file lacks a column or FlatMap key where
// names that another file holds (Lacks). wheres is nil when every file
// reads where as it is, and also when some path of where is one that no
// file holds: unknown names it, for the caller to report.
func FileWheres(files []*File, where string, e filter.Expr) (wheres []string, none []bool, unknown string) {
	rewrite := false
	for _, p := range filter.Columns(e) {
		some, all := false, true
		for _, f := range files {
			l := f.lacks(p)
			some, all = some || l, all && l
		}
		if all {
			return nil, nil, p
		}
		rewrite = rewrite || some
	}
	if !rewrite {
		return nil, nil, ""
	}
	wheres, none = make([]string, len(files)), make([]bool, len(files))
	for i, f := range files {
		wheres[i], none[i] = whereForFile(where, e, f)
	}
	return wheres, none, ""
}
