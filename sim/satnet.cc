// placeholder until the scenario lands
int
main()
{
    return 0;
}
