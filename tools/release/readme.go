package release

import "regexp"

var (
	readmeModuleVersion  = regexp.MustCompile(`(github\.com/idemq/idemq(?:/[A-Za-z0-9_./-]*[A-Za-z0-9_])?)@v[0-9]+\.[0-9]+\.[0-9]+\b`)
	readmeCurrentVersion = regexp.MustCompile(`(The current version is \*\*)v[0-9]+\.[0-9]+\.[0-9]+(\*\*)`)
)

// Readme returns README.md's text with the version it tells users to
// depend on set to version: every "github.com/idemq/idemq…@vX.Y.Z" and
// "The current version is **vX.Y.Z**". The bump commit carries it.
func Readme(text, version string) string {
	text = readmeModuleVersion.ReplaceAllString(text, "${1}@"+version)
	return readmeCurrentVersion.ReplaceAllString(text, "${1}"+version+"${2}")
}
