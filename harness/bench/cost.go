package bench

// On-demand prices of DynamoDB (us-east-1, standard table class), in US
// dollars, as AWS has published them since its price cut of 1 November
// 2024; PricesDate names that.
const (
	PricePerMillionWriteUnits = 0.625
	PricePerMillionReadUnits  = 0.125
	PricePerGBMonth           = 0.25
	PricesDate                = "2024-11-01"
)

// WriteUnitsPerRecord is the median write capacity consumed per record.
func (m Measurement) WriteUnitsPerRecord() float64 {
	return m.median(func(s Sample) float64 { return s.WriteUnits / float64(s.Records) })
}

// ReadUnitsPerRecord is the median read capacity consumed per record.
func (m Measurement) ReadUnitsPerRecord() float64 {
	return m.median(func(s Sample) float64 { return s.ReadUnits / float64(s.Records) })
}

// ItemBytes is the median size of a stored item, as DynamoDB counts it.
func (m Measurement) ItemBytes() float64 {
	return m.median(func(s Sample) float64 {
		if s.StoredItems == 0 {
			return 0
		}
		return float64(s.StoredBytes) / float64(s.StoredItems)
	})
}

// CostPerMillion is what a million records cost in requests at on-demand
// prices, in US dollars.
func (m Measurement) CostPerMillion() float64 {
	return m.WriteUnitsPerRecord()*PricePerMillionWriteUnits + m.ReadUnitsPerRecord()*PricePerMillionReadUnits
}

// StorageCostPerMillion is what a million records' items cost to keep for
// a month, in US dollars (DynamoDB adds 100 bytes of index overhead per
// item to the stored size it bills).
func (m Measurement) StorageCostPerMillion() float64 {
	return (m.ItemBytes() + 100) * 1e6 / (1 << 30) * PricePerGBMonth
}
