package interop

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Geospatial columns: Parquet's GEOMETRY and GEOGRAPHY logical types annotate
// BYTE_ARRAY columns of well-known binary (WKB) with a coordinate reference
// system and, for GEOGRAPHY, an edge interpolation algorithm. arrow-go reads
// them through whichever registered Arrow extension type claims them, and
// registers none itself; without one the column arrives as plain binary and
// export could not write the logical type back.
//
// WKBType is that extension, under GeoArrow's name for WKB ("geoarrow.wkb"),
// so that Arrow IPC exports are recognised by GeoArrow readers. Its metadata
// is GeoArrow's JSON object ("crs", "edges") plus a "parquet" member holding
// the Parquet annotation exactly as read (which of CRS and algorithm were set,
// and their text), so that Parquet → Strata → Parquet keeps the logical type
// unchanged, defaults included. Strata stores the values as binary; import
// records the extension in the file's source schema, and export restores it.

// WKBExtensionName is the Arrow extension name of geospatial WKB columns.
const WKBExtensionName = "geoarrow.wkb"

// defaultCRS is the coordinate reference system Parquet means when a
// GEOMETRY or GEOGRAPHY annotation sets none.
const defaultCRS = "OGC:CRS84"

// ParquetGeo is a Parquet geospatial annotation as written in the file.
type ParquetGeo struct {
	// Geography is true for GEOGRAPHY (edges on the sphere or spheroid),
	// false for GEOMETRY (planar edges).
	Geography bool `json:"geography,omitempty"`
	// CRS is the coordinate reference system text; empty when the file
	// sets none (OGC:CRS84).
	CRS string `json:"crs,omitempty"`
	// Algorithm is GEOGRAPHY's edge interpolation algorithm; empty when
	// the file sets none (spherical).
	Algorithm string `json:"algorithm,omitempty"`
}

// wkbMeta is the serialized metadata: GeoArrow's members and the exact
// Parquet annotation.
type wkbMeta struct {
	CRS     string      `json:"crs,omitempty"`
	Edges   string      `json:"edges,omitempty"`
	Parquet *ParquetGeo `json:"parquet,omitempty"`
}

// WKBType is the Arrow extension type of a geospatial column (see above).
type WKBType struct {
	arrow.ExtensionBase
	geo ParquetGeo
}

// NewWKBType returns the extension over storage (binary, large binary or
// binary view, as GeoArrow allows) for the Parquet annotation geo.
func NewWKBType(storage arrow.DataType, geo ParquetGeo) (*WKBType, error) {
	switch storage.ID() {
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
	default:
		return nil, fmt.Errorf("%s extension: storage %s is not binary", WKBExtensionName, storage)
	}
	if geo.Algorithm != "" && !geo.Geography {
		return nil, fmt.Errorf("%s extension: edge algorithm %q on a GEOMETRY column", WKBExtensionName, geo.Algorithm)
	}
	return &WKBType{ExtensionBase: arrow.ExtensionBase{Storage: storage}, geo: geo}, nil
}

// Geo returns the Parquet annotation the column carries.
func (t *WKBType) Geo() ParquetGeo { return t.geo }

// ExtensionName implements arrow.ExtensionType.
func (*WKBType) ExtensionName() string { return WKBExtensionName }

// ArrayType implements arrow.ExtensionType.
func (*WKBType) ArrayType() reflect.Type { return reflect.TypeOf(WKBArray{}) }

// Serialize implements arrow.ExtensionType: GeoArrow's members, with the
// defaults Parquet implies written out, and the annotation as read.
func (t *WKBType) Serialize() string {
	m := wkbMeta{CRS: t.geo.CRS, Parquet: &t.geo}
	if m.CRS == "" {
		m.CRS = defaultCRS
	}
	if t.geo.Geography {
		m.Edges = t.geo.Algorithm
		if m.Edges == "" {
			m.Edges = string(schema.GeographyEdgeSpherical)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // a struct of strings always marshals
	}
	return string(b)
}

// Deserialize implements arrow.ExtensionType. Metadata without the
// "parquet" member (another GeoArrow producer's) is read as GEOGRAPHY when
// its edges are not planar, with its CRS and edges set explicitly.
func (*WKBType) Deserialize(storage arrow.DataType, data string) (arrow.ExtensionType, error) {
	var m wkbMeta
	if data != "" {
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return nil, fmt.Errorf("%s extension metadata: %w", WKBExtensionName, err)
		}
	}
	if m.Parquet != nil {
		return NewWKBType(storage, *m.Parquet)
	}
	g := ParquetGeo{CRS: m.CRS}
	if m.Edges != "" && m.Edges != "planar" {
		g.Geography, g.Algorithm = true, m.Edges
	}
	return NewWKBType(storage, g)
}

// ExtensionEquals implements arrow.ExtensionType.
func (t *WKBType) ExtensionEquals(other arrow.ExtensionType) bool {
	o, ok := other.(*WKBType)
	return ok && o.geo == t.geo && arrow.TypeEqual(t.Storage, o.Storage)
}

func (t *WKBType) String() string {
	kind := "geometry"
	if t.geo.Geography {
		kind = "geography"
	}
	return fmt.Sprintf("extension<%s[%s, storage_type=%s]>", WKBExtensionName, kind, t.Storage)
}

// ParquetLogicalType implements pqarrow.ExtensionCustomParquetType: the
// annotation the column was read with.
func (t *WKBType) ParquetLogicalType() schema.LogicalType {
	if t.geo.Geography {
		return schema.GeographyLogicalType{Crs: t.geo.CRS, Algorithm: schema.GeographyEdgeInterpolationAlgorithm(t.geo.Algorithm)}
	}
	return schema.GeometryLogicalType{Crs: t.geo.CRS}
}

// ArrowTypeFromParquet implements pqarrow.ExtensionCustomArrowReadType:
// GEOMETRY and GEOGRAPHY columns read as WKBType over their storage.
func (*WKBType) ArrowTypeFromParquet(logical schema.LogicalType, storage arrow.DataType) (arrow.ExtensionType, error) {
	switch lt := logical.(type) {
	case schema.GeometryLogicalType:
		return NewWKBType(storage, ParquetGeo{CRS: lt.Crs})
	case schema.GeographyLogicalType:
		return NewWKBType(storage, ParquetGeo{Geography: true, CRS: lt.Crs, Algorithm: string(lt.Algorithm)})
	}
	return nil, nil
}

// WKBArray is an array of WKBType: each value one geometry's well-known
// binary.
type WKBArray struct {
	array.ExtensionArrayBase
}

// init registers WKBType. The registry refuses a second type of one name,
// so a process that registered its own "geoarrow.wkb" first keeps it (and
// import uses it if it maps the Parquet annotation, else refuses the column).
func init() {
	_ = arrow.RegisterExtensionType(&WKBType{ExtensionBase: arrow.ExtensionBase{Storage: arrow.BinaryTypes.Binary}})
}
