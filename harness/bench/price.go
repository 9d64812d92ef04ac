package bench

import "time"

// S3 Standard's prices (us-east-1), in US dollars: requests and storage.
// Expiring objects by a lifecycle rule is free.
const (
	PricePerMillionS3Puts = 5.00
	PricePerMillionS3Gets = 0.40
	PricePerS3GBMonth     = 0.023
)

// HoursPerMonth is the month AWS bills storage by (GB-month = a GB kept
// 730 hours).
const HoursPerMonth = 730

// itemOverheadBytes is what DynamoDB adds to each item's size for its
// index when it bills storage.
const itemOverheadBytes = 100

// Usage per record of one side at one result size, as the size scenarios
// measure it: what the first delivery and a duplicate each send, and what
// stays stored.
type PerRecord struct {
	// WriteUnits, ReadUnits, Puts and Gets of a first delivery (claim,
	// work, completion): DynamoDB capacity units and S3 requests.
	WriteUnits, ReadUnits, Puts, Gets float64
	// DupWriteUnits, DupReadUnits, DupPuts and DupGets of one duplicate
	// of a completed record (a redelivery).
	DupWriteUnits, DupReadUnits, DupPuts, DupGets float64
	// ItemBytes is the record's item as DynamoDB bills it (without its
	// 100 bytes of overhead); ObjectBytes its S3 object, 0 when inline.
	ItemBytes, ObjectBytes float64
}

// CostModel prices records: duplicates at a rate, storage for a lifetime.
type CostModel struct {
	// DuplicateRate is the duplicates per record: 0.1 when one record in
	// ten is delivered twice.
	DuplicateRate float64
	// ItemLifetime is how long a record's item is kept (the record
	// expiry, idem.DefaultExpiry); ObjectLifetime how long its object is
	// (the bucket's lifecycle rule, a day or so longer).
	ItemLifetime, ObjectLifetime time.Duration
}

// Cost is what a million records cost, in US dollars, by part.
type Cost struct {
	Writes     float64 // the first deliveries: DynamoDB capacity and S3 requests
	Duplicates float64 // the duplicates, at the model's rate
	Storage    float64 // items and objects, kept for their lifetimes
}

// Total is the sum of the parts.
func (c Cost) Total() float64 { return c.Writes + c.Duplicates + c.Storage }

// PerMillion is what a million records cost under m.
func (m CostModel) PerMillion(u PerRecord) Cost {
	requests := func(wu, ru, puts, gets float64) float64 {
		return wu*PricePerMillionWriteUnits + ru*PricePerMillionReadUnits +
			puts*PricePerMillionS3Puts + gets*PricePerMillionS3Gets
	}
	const gb = 1 << 30
	item := (u.ItemBytes + itemOverheadBytes) * 1e6 / gb * PricePerGBMonth * months(m.ItemLifetime)
	object := u.ObjectBytes * 1e6 / gb * PricePerS3GBMonth * months(m.ObjectLifetime)
	return Cost{
		Writes:     requests(u.WriteUnits, u.ReadUnits, u.Puts, u.Gets),
		Duplicates: m.DuplicateRate * requests(u.DupWriteUnits, u.DupReadUnits, u.DupPuts, u.DupGets),
		Storage:    item + object,
	}
}

// months is d in billing months.
func months(d time.Duration) float64 { return d.Hours() / HoursPerMonth }

// BreakEven is the smallest stored result, in bytes, that costs less in a
// blob store than in the record under m, by writeUnits' rounding: inline,
// an item of itemBytes besides the result; offloaded, a pointer item of
// pointerBytes, one S3 PUT per first delivery and one GET per duplicate.
// Both pay a one-unit claim, which cancels out. It returns 0 when no size
// up to limit breaks even.
func (m CostModel) BreakEven(itemBytes, pointerBytes, limit int) int {
	offload := m.PerMillion(PerRecord{
		WriteUnits: writeUnits(pointerBytes), Puts: 1,
		DupWriteUnits: writeUnits(pointerBytes), DupGets: 1,
		ItemBytes: float64(pointerBytes),
	})
	for b := 1; b <= limit; b++ {
		item := itemBytes + b
		inline := m.PerMillion(PerRecord{
			WriteUnits: writeUnits(item), DupWriteUnits: writeUnits(item), ItemBytes: float64(item),
		})
		stored := m.PerMillion(PerRecord{ObjectBytes: float64(b)})
		if inline.Total() > offload.Total()+stored.Total() {
			return b
		}
	}
	return 0
}
