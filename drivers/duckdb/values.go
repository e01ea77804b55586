package duckdb

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// colKind is how a result column's values are read from a vector.
type colKind int

const (
	kNull colKind = iota
	kBool
	kInt8
	kInt16
	kInt32
	kInt64
	kUint8
	kUint16
	kUint32
	kUint64
	kHuge
	kUhuge
	kFloat32
	kFloat64
	kDecimal
	kVarchar
	kBlob
	kDate
	kTime
	kTimeNS
	kTimestampS
	kTimestampMS
	kTimestampUS
	kTimestampNS
	kUUID
	kEnum
)

type colReader struct {
	kind colKind
	// sub is the storage kind of DECIMAL and ENUM values.
	sub   colKind
	scale float64  // DECIMAL: 10^scale
	dict  []string // ENUM
}

// colSet converts a result's chunks to Go values.
type colSet struct {
	cols []colReader
}

var primitiveKinds = map[mapping.Type]colKind{
	mapping.TypeSQLNull:     kNull,
	mapping.TypeBoolean:     kBool,
	mapping.TypeTinyInt:     kInt8,
	mapping.TypeSmallInt:    kInt16,
	mapping.TypeInteger:     kInt32,
	mapping.TypeBigInt:      kInt64,
	mapping.TypeUTinyInt:    kUint8,
	mapping.TypeUSmallInt:   kUint16,
	mapping.TypeUInteger:    kUint32,
	mapping.TypeUBigInt:     kUint64,
	mapping.TypeHugeInt:     kHuge,
	mapping.TypeUHugeInt:    kUhuge,
	mapping.TypeFloat:       kFloat32,
	mapping.TypeDouble:      kFloat64,
	mapping.TypeVarchar:     kVarchar,
	mapping.TypeBlob:        kBlob,
	mapping.TypeDate:        kDate,
	mapping.TypeTime:        kTime,
	mapping.TypeTimeNS:      kTimeNS,
	mapping.TypeTimestampS:  kTimestampS,
	mapping.TypeTimestampMS: kTimestampMS,
	mapping.TypeTimestamp:   kTimestampUS,
	mapping.TypeTimestampTZ: kTimestampUS,
	mapping.TypeTimestampNS: kTimestampNS,
	mapping.TypeUUID:        kUUID,
}

// init learns the result's column types; a type with no Go mapping fails
// here, naming the column.
func (cs *colSet) init(res *mapping.Result) error {
	n := int(mapping.ColumnCount(res))
	cs.cols = cs.cols[:0]
	for i := 0; i < n; i++ {
		lt := mapping.ColumnLogicalType(res, mapping.IdxT(i))
		c, err := readerFor(lt)
		mapping.DestroyLogicalType(&lt)
		if err != nil {
			return fmt.Errorf("result column %d (%s): %w", i+1, mapping.ColumnName(res, mapping.IdxT(i)), err)
		}
		cs.cols = append(cs.cols, c)
	}
	return nil
}

func readerFor(lt mapping.LogicalType) (colReader, error) {
	id := mapping.GetTypeId(lt)
	if k, ok := primitiveKinds[id]; ok {
		return colReader{kind: k}, nil
	}
	switch id {
	case mapping.TypeDecimal:
		sub, ok := primitiveKinds[mapping.DecimalInternalType(lt)]
		if !ok {
			return colReader{}, fmt.Errorf("unsupported DECIMAL storage")
		}
		return colReader{kind: kDecimal, sub: sub, scale: math.Pow10(int(mapping.DecimalScale(lt)))}, nil
	case mapping.TypeEnum:
		sub, ok := primitiveKinds[mapping.EnumInternalType(lt)]
		if !ok {
			return colReader{}, fmt.Errorf("unsupported ENUM storage")
		}
		size := int(mapping.EnumDictionarySize(lt))
		dict := make([]string, size)
		for i := range dict {
			dict[i] = mapping.EnumDictionaryValue(lt, mapping.IdxT(i))
		}
		return colReader{kind: kEnum, sub: sub, dict: dict}, nil
	}
	return colReader{}, fmt.Errorf("type id %d has no Go value here; cast it in SQL (e.g. to VARCHAR)", id)
}

// appendRows appends the chunk's size rows to dst.
func (cs *colSet) appendRows(dst [][]any, ch mapping.DataChunk, size int) [][]any {
	type vec struct {
		data  unsafe.Pointer
		valid unsafe.Pointer
	}
	vecs := make([]vec, len(cs.cols))
	for i := range vecs {
		v := mapping.DataChunkGetVector(ch, mapping.IdxT(i))
		vecs[i] = vec{mapping.VectorGetData(v), mapping.VectorGetValidity(v)}
	}
	for r := 0; r < size; r++ {
		row := make([]any, len(cs.cols))
		for i := range cs.cols {
			if vecs[i].valid != nil && !rowValid(vecs[i].valid, r) {
				continue
			}
			row[i] = cs.cols[i].read(vecs[i].data, r)
		}
		dst = append(dst, row)
	}
	return dst
}

func rowValid(mask unsafe.Pointer, r int) bool {
	w := *(*uint64)(unsafe.Add(mask, (r>>6)*8))
	return w>>(uint(r)&63)&1 == 1
}

func at[T any](data unsafe.Pointer, r int) T {
	var zero T
	return *(*T)(unsafe.Add(data, uintptr(r)*unsafe.Sizeof(zero)))
}

// hugeint is DuckDB's 128-bit integer layout.
type hugeint struct {
	lower uint64
	upper int64
}

func (c *colReader) read(data unsafe.Pointer, r int) any {
	switch c.kind {
	case kNull:
		return nil
	case kBool:
		return at[bool](data, r)
	case kDecimal:
		return c.decimal(data, r)
	case kEnum:
		i := readInt(c.sub, data, r)
		if i < 0 || i >= int64(len(c.dict)) {
			return nil
		}
		return c.dict[i]
	case kFloat32:
		return float64(at[float32](data, r))
	case kFloat64:
		return at[float64](data, r)
	case kVarchar:
		return readString(unsafe.Add(data, r*16))
	case kBlob:
		return []byte(readString(unsafe.Add(data, r*16)))
	case kDate:
		return time.Unix(int64(at[int32](data, r))*86400, 0).UTC()
	case kTime, kTimestampUS:
		return time.UnixMicro(at[int64](data, r)).UTC()
	case kTimeNS, kTimestampNS:
		return time.Unix(0, at[int64](data, r)).UTC()
	case kTimestampS:
		return time.Unix(at[int64](data, r), 0).UTC()
	case kTimestampMS:
		return time.UnixMilli(at[int64](data, r)).UTC()
	case kUUID:
		h := at[hugeint](data, r)
		var b [16]byte
		putBE(b[:8], uint64(h.upper)^(1<<63))
		putBE(b[8:], h.lower)
		s := hex.EncodeToString(b[:])
		return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
	case kUint64:
		u := at[uint64](data, r)
		if u > math.MaxInt64 {
			return strconv.FormatUint(u, 10)
		}
		return int64(u)
	case kHuge:
		h := at[hugeint](data, r)
		if (h.upper == 0 && h.lower <= math.MaxInt64) || (h.upper == -1 && h.lower > math.MaxInt64) {
			return int64(h.lower)
		}
		return hugeBig(h.upper, h.lower).String()
	case kUhuge:
		h := at[hugeint](data, r)
		if h.upper == 0 && h.lower <= math.MaxInt64 {
			return int64(h.lower)
		}
		v := new(big.Int).SetUint64(uint64(h.upper))
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(h.lower))
		return v.String()
	default:
		return readInt(c.kind, data, r)
	}
}

// readInt reads the integer kinds that always fit int64.
func readInt(k colKind, data unsafe.Pointer, r int) int64 {
	switch k {
	case kInt8:
		return int64(at[int8](data, r))
	case kInt16:
		return int64(at[int16](data, r))
	case kInt32:
		return int64(at[int32](data, r))
	case kInt64:
		return at[int64](data, r)
	case kUint8:
		return int64(at[uint8](data, r))
	case kUint16:
		return int64(at[uint16](data, r))
	case kUint32:
		return int64(at[uint32](data, r))
	}
	return 0
}

func (c *colReader) decimal(data unsafe.Pointer, r int) float64 {
	if c.sub == kHuge {
		h := at[hugeint](data, r)
		f, _ := new(big.Float).SetInt(hugeBig(h.upper, h.lower)).Float64()
		return f / c.scale
	}
	return float64(readInt(c.sub, data, r)) / c.scale
}

func hugeBig(upper int64, lower uint64) *big.Int {
	v := big.NewInt(upper)
	v.Lsh(v, 64)
	return v.Add(v, new(big.Int).SetUint64(lower))
}

func putBE(b []byte, v uint64) {
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
}

// readString copies a duckdb_string_t: a 4-byte length, then up to 12
// bytes inline, or a 4-byte prefix and a pointer to the bytes.
func readString(p unsafe.Pointer) string {
	n := *(*uint32)(p)
	if n == 0 {
		return ""
	}
	if n <= 12 {
		return string(unsafe.Slice((*byte)(unsafe.Add(p, 4)), n))
	}
	ptr := *(*unsafe.Pointer)(unsafe.Add(p, 8))
	return string(unsafe.Slice((*byte)(ptr), n))
}
