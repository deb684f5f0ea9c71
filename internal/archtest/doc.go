// Package archtest holds no code: its tests check the import rules that keep
// the layers of the project apart, and that docs/architecture.md states
// them (its package table's import column, the Deriver methods it names).
package archtest
