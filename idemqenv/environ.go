package idemqenv

// Environ returns the variables s sets, as its program reads them: each
// variable of s.Program whose value says something (a zero duration or
// count, an empty string, is unset; a bool is always written). For
// settings Read returned, Read of Environ gives them back, and each
// variable Read was given that Environ writes is written as it was given
// when it was written in its canonical form (a duration as
// time.Duration.String writes it, a store in lower case).
func (s Settings) Environ() map[string]string {
	env := map[string]string{}
	for _, v := range vars {
		if !v.Programs.Has(s.Program) {
			continue
		}
		if val := v.value.format(s); val != "" {
			env[v.Name] = val
		}
	}
	return env
}
