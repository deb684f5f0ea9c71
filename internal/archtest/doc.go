// Package archtest holds no code: its test checks the import rules that keep
// the layers of the project apart (see docs/architecture.md).
package archtest
