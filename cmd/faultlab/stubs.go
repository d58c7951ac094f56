package main

import (
	"github.com/spf13/cobra"
)

func newCmd() *cobra.Command    { return &cobra.Command{Use: "new"} }
func schemaCmd() *cobra.Command { return &cobra.Command{Use: "schema"} }
