// Runs satnet's ns-3 test suites: `satnet-test [--suite=NAME] [--verbose] [--list]`.
#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
