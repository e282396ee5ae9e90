package main

import (
	"os"

	"github.com/spf13/pflag"
	"sigs.k8s.io/kwok/pkg/config"
	kwokcmd "sigs.k8s.io/kwok/pkg/kwok/cmd"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

func runKwok() int {
	flags := pflag.NewFlagSet("global", pflag.ContinueOnError)
	flags.ParseErrorsWhitelist.UnknownFlags = true
	flags.Usage = func() {}
	ctx := signals.SetupSignalContext()
	ctx, logger := log.InitFlags(ctx, flags)
	ctx, err := config.InitFlags(ctx, flags)
	if err != nil {
		_, _ = os.Stderr.Write([]byte(flags.FlagUsages()))
		logger.Error("Init config flags", err)
		return 1
	}
	command := kwokcmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(flags)
	if err := command.ExecuteContext(ctx); err != nil {
		logger.Error("Execute exit", err)
		return 1
	}
	return 0
}
