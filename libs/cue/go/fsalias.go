package main

import "testing/fstest"

type fstestFile = fstest.MapFile
