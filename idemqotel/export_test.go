package idemqotel

// Names the package's external tests read.
const (
	BatchItemFailuresKey = batchItemFailuresKey
	ClaimAnswerKey       = claimAnswerKey
	KeyKey               = keyKey
	OutcomeKey           = outcomeKey
	XRayHeader           = xRayHeader
)

var (
	MessageContext = messageContext
	ParseXRay      = parseXRay
)
