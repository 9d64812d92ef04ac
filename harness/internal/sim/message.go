package sim

import "time"

// message is one SQS message. A broker duplicate or a producer re-send is
// another message with the same key.
type message struct {
	id, key   string
	visibleAt time.Time
	receives  int
	receipt   int // the latest receive's; a delete with an older one does nothing
	deleted   bool
}

// batch is one receive: the messages an instance got, with their receipts,
// and what its handler did with them.
type batch struct {
	n        int
	msgs     []*message
	receipts []int
	claims   map[string]*exec  // the claim made for each key
	replays  map[string][]byte // message id → the result the replay hook got
}
