package idemtest

import (
	"bytes"
	"math/rand/v2"
	"strings"
)

// proseWords are common English words, from which Prose draws.
var proseWords = strings.Fields(`the of and to a in that is was he for it with as his on be at by i this
had not are but from or have an they which one you were her all she there would their we him been has
when who will more no if out so said what up its about into than them can only other new some could time
these two may then do first any my now such like our over man me even most made after also did many
before must through back years where much your way well down should because each just those people how
too little state good very make world still own see men work long get here between both life being under
never day same another know while last might us great old year off come since against go came right used
take three`)

// Prose returns n bytes of sentences of common English words, the same
// for the same n, which gzip compresses about as much as it does prose
// (1.9× at 1 KiB, 2.8× at 64 KiB, 2.9× at 1 MiB): a model's answer, for
// tests of compressed results.
func Prose(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.Grow(n + 16)
	start := true
	for b.Len() < n {
		w := proseWords[r.IntN(len(proseWords))]
		if start {
			w = strings.ToUpper(w[:1]) + w[1:]
			start = false
		}
		b.WriteString(w)
		switch r.IntN(12) {
		case 0:
			b.WriteString(". ")
			start = true
		case 1:
			b.WriteString(", ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}
