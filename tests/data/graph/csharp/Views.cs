namespace App.Views
{
    public interface IMessageDisplay
    {
        void Error(string message);
    }

    public interface IView
    {
        IMessageDisplay MessageDisplay { get; }
    }

    public interface IMainView : IView
    {
        IDialogManager DialogManager { get; }
    }

    public interface IDialogManager
    {
        string GetFileOpenPath(string title);
    }

    public class Notice
    {
        public void Error(string message) { }
    }

    public class MainPresenter
    {
        private readonly IMainView view;

        public MainPresenter(IMainView view)
        {
            this.view = view;
        }

        public void Open()
        {
            string path = view.DialogManager.GetFileOpenPath("Open");
            view.MessageDisplay.Error(path);
        }
    }
}
