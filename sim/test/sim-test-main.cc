// Runs sim/'s ns-3 test suites (model, contract, programs):
// `sim-test [--suite=NAME] [--verbose] [--list] [--fullness=QUICK|EXTENSIVE]`.
#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
