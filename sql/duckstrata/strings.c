// String columns go into DuckDB vectors one call per vector: the loop over
// the values runs here, in C, so a batch costs one cgo crossing instead of
// one per value. The prototypes are DuckDB's (duckdb.h), declared here with
// plain pointers because the header lives in the bindings module.

#include <stdint.h>

void duckdb_vector_assign_string_element_len(void *vector, uint64_t index, const char *str, uint64_t str_len);
void duckdb_vector_ensure_validity_writable(void *vector);
uint64_t *duckdb_vector_get_validity(void *vector);

// strata_assign_strings assigns n values of an Arrow string or binary array
// (32-bit offsets) to rows 0..n-1 of vec. valid is the Arrow validity
// bitmap (NULL when every value is valid) and bit its first bit; rows null
// there or already null in vec (the caller marks them in the vector's
// validity mask, including the fields of a null struct) are skipped. DuckDB
// copies each value into the vector's own string heap and checks VARCHAR
// values for UTF-8, making an invalid one NULL: the function returns the
// first row DuckDB refused that way, or -1, so the caller can report it
// instead of handing out a NULL the file does not hold.
int64_t strata_assign_strings(void *vec, const char *data, const int32_t *offs, const uint8_t *valid,
                              uint64_t bit, uint64_t n) {
	// (a writable mask stays where it is as DuckDB marks rows in it)
	duckdb_vector_ensure_validity_writable(vec);
	uint64_t *mask = duckdb_vector_get_validity(vec);
	for (uint64_t i = 0; i < n; i++) {
		if (valid) {
			uint64_t b = bit + i;
			if (!((valid[b >> 3] >> (b & 7)) & 1)) continue;
		}
		if (!((mask[i >> 6] >> (i & 63)) & 1)) continue;
		int32_t lo = offs[i], hi = offs[i + 1];
		duckdb_vector_assign_string_element_len(vec, i, data + lo, (uint64_t)(hi - lo));
		if (!((mask[i >> 6] >> (i & 63)) & 1)) return (int64_t)i;
	}
	return -1;
}
