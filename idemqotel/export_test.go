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
	NewTracer      = newTracer
	MessageContext = messageContext
	ParseXRay      = parseXRay
)
