module github.com/shoalgo/shoal

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sys v0.50.0
)

require github.com/fsnotify/fsnotify v1.10.1
