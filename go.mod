module github.com/shoalgo/shoal

go 1.26.8
