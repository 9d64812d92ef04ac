package memstore

import (
	"bytes"
	"fmt"
)

// Write is a write staged with idem.Stage for this store: a change to the
// store's own key/value data, made through tx and read back with
// Store.Value. The Writes of one completion run in the order they were
// staged, under the store's lock (a Write must not call the Store), before
// the record is marked COMPLETED; their changes apply with the record or
// not at all. A Write that returns an error or panics fails the Complete
// with ErrWriteFailed: the record stays IN_PROGRESS (idem.Do then releases
// it, so a retry runs the work again) and none of the completion's changes
// is visible. What a Write does outside tx cannot be undone.
type Write func(tx *Tx) error

// Tx is the store's data as the Writes of one completion see it: their own
// changes, over what earlier completions committed.
type Tx struct {
	data    map[string][]byte // the store's, read-only here
	changes map[string][]byte // a nil value is a deletion
}

// Get returns the value at key.
func (tx *Tx) Get(key string) ([]byte, bool) {
	if v, ok := tx.changes[key]; ok {
		return bytes.Clone(v), v != nil
	}
	v, ok := tx.data[key]
	return bytes.Clone(v), ok
}

// Put sets the value at key.
func (tx *Tx) Put(key string, value []byte) {
	tx.change(key, append([]byte{}, value...)) // never nil: nil is a deletion
}

// Delete removes the value at key.
func (tx *Tx) Delete(key string) { tx.change(key, nil) }

func (tx *Tx) change(key string, value []byte) {
	if tx.changes == nil {
		tx.changes = make(map[string][]byte)
	}
	tx.changes[key] = value
}

// run calls w, turning its panic into an error.
func (tx *Tx) run(w Write) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return w(tx)
}

// commit applies the changes to the store's data. The caller holds the
// store's lock.
func (tx *Tx) commit() {
	for k, v := range tx.changes {
		if v == nil {
			delete(tx.data, k)
		} else {
			tx.data[k] = v
		}
	}
}
